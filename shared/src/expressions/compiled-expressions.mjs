// Compiled JSONata expressions of an expression host's thread (eval-thread.mjs). Plain JS: it runs without tsx.
import jsonata from "jsonata";
import { OwnerLru } from "../pools/owner-lru.mjs";
import { LinearRegExp } from "./linear-regex.mjs";

/**
 * Kept by text, bounded in count and in characters of text (a compiled expression is its parse, a few times its
 * text): every tenant's expressions share them, so one owner's many distinct (or long) expressions push out its own
 * least recently used, not another's (OwnerLru). Reusing one is safe because the thread evaluates one expression at
 * a time (the host sends the next only after the previous answer).
 */
const MAX_COMPILED = 512;
const MAX_COMPILED_CHARS = 2 * 1024 * 1024;
const compiled = new OwnerLru(MAX_COMPILED, MAX_COMPILED_CHARS);

/** `expression` compiled for `owner`, with JSONata's limit on nested evaluation `maxDepth`. */
export function compiledExpression(expression, owner, maxDepth) {
  let expr = compiled.get(expression);
  if (expr === undefined) {
    expr = jsonata(expression, { RegexEngine: LinearRegExp, stack: maxDepth });
    compiled.set(expression, owner, expr, expression.length);
  }
  return expr;
}

/** How many compiled expressions the thread keeps, their characters, and whether it keeps one. */
export function expressionsKept() {
  return { count: compiled.count, chars: compiled.size, has: (expression) => compiled.has(expression) };
}
