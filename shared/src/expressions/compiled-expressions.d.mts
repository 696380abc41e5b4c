// Types of compiled-expressions.mjs, which is plain JavaScript: it runs in an expression host's thread, without tsx.
import type { Expression } from "jsonata";

export function compiledExpression(expression: string, owner: string, maxDepth: number): Expression;
export function expressionsKept(): { count: number; chars: number; has(expression: string): boolean };
