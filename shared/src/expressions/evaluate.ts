import jsonata from "jsonata";
import { evaluateInWorker } from "./isolated-eval";

/** The names an expression can see; nothing else is reachable (JSONata has no I/O or globals). */
export interface ExpressionContext {
  vars: Record<string, unknown>;
  steps: Record<string, unknown>;
  item?: unknown;
  approval?: unknown;
  execution: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

export class ExpressionError extends Error {
  readonly expression: string;
  constructor(expression: string, reason: string) {
    super(`expression \`${expression}\` failed: ${reason}`);
    this.name = "ExpressionError";
    this.expression = expression;
  }
}

const LIMITS = { timeoutMs: 1_000, maxDepth: 500 };

/**
 * Evaluates one JSONata expression. Expressions without function definitions always terminate
 * and run inline, with a time box on the compiled expression (compiled per call, because the
 * box lives on its environment and evaluations run concurrently). Expressions that define
 * functions can loop forever synchronously, so they run in a worker that is killed at the limit.
 */
export async function evaluateExpression(expression: string, context: ExpressionContext): Promise<unknown> {
  let compiled: jsonata.Expression;
  try {
    compiled = jsonata(expression);
  } catch (err) {
    throw new ExpressionError(expression, reasonOf(err));
  }
  try {
    if (definesFunction(compiled.ast())) return normalise(await evaluateInWorker(expression, context, LIMITS.timeoutMs));
    timeBox(compiled);
    return normalise(await compiled.evaluate(context));
  } catch (err) {
    throw new ExpressionError(expression, reasonOf(err));
  }
}

function timeBox(compiled: jsonata.Expression): void {
  const started = Date.now();
  let depth = 0;
  const check = () => {
    if (depth > LIMITS.maxDepth) throw new Error("recursion too deep");
    if (Date.now() - started > LIMITS.timeoutMs) throw new Error(`took longer than ${LIMITS.timeoutMs} ms`);
  };
  compiled.assign("__evaluate_entry", () => {
    depth++;
    check();
  });
  compiled.assign("__evaluate_exit", () => {
    depth--;
    check();
  });
}

function definesFunction(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(definesFunction);
  if (node === null || typeof node !== "object") return false;
  if ((node as { type?: string }).type === "lambda") return true;
  return Object.values(node).some(definesFunction);
}

/** JSONata marks result arrays with a `sequence` property; strip it so values are plain JSON. */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalise);
  return value;
}

function reasonOf(err: unknown): string {
  if (err && typeof err === "object" && "message" in err) {
    const e = err as { message: string; position?: number; token?: string };
    return e.position !== undefined ? `${e.message} (at character ${e.position})` : e.message;
  }
  return String(err);
}

/** `condition`: a bare expression; missing values count as false. */
export async function evaluateCondition(expression: string, context: ExpressionContext): Promise<boolean> {
  const v = await evaluateExpression(expression, context);
  return v !== undefined && v !== null && v !== false && v !== 0 && v !== "";
}
