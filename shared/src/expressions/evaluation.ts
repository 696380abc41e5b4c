import { contextFor, planFor, readNamePath, type ExpressionPlan } from "./expression-plan";
import { evaluateCalc } from "./inline-arithmetic";
import { evaluateInline } from "./inline-comparison";

/**
 * How the service evaluates an expression, with no Node module in it: the service runs it with the expression hosts
 * (evaluate.ts), the console's preview in a Web Worker of its own (portable.ts), so the two cannot disagree.
 */

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
  /** Why it failed, without the expression: JSONata's message (and position), or the host's. */
  readonly reason: string;
  constructor(expression: string, reason: string) {
    super(`expression \`${expression}\` failed: ${reason}`);
    this.name = "ExpressionError";
    this.expression = expression;
    this.reason = reason;
  }
}

export const EXPRESSION_LIMITS = {
  deadlineMs: 1_000,
  maxDepth: 500,
  // More than any execution record can hold (a NATS message, 8 MB at most in the deploy
  // configs), so no useful result is refused; bounded, since the main thread parses it.
  maxResultChars: 16 * 1024 * 1024,
  // Per evaluating thread: the largest contexts fit several times over.
  maxHeapMb: 512,
} as const;

/**
 * Evaluates what the calling thread does not: given only the part of the context the expression reads, it resolves
 * with the result as JSON would carry it, or rejects with JSONata's error (`message`, `position`) or its own.
 */
export type OffThreadEvaluator = (
  expression: string,
  context: Record<string, unknown>,
  owner: string,
  signal?: AbortSignal,
) => Promise<unknown>;

/**
 * Evaluates one JSONata expression. Only parsing (cached), reading a bare path of names through
 * plain objects (readNamePath), comparing such paths with scalar literals (inline-comparison.ts)
 * and arithmetic or joins of them (inline-arithmetic.ts) happen on the calling thread; everything
 * else goes to `offThread`, with only the part of the context it can read.
 */
export async function evaluateExpressionWith(
  offThread: OffThreadEvaluator,
  expression: string,
  context: ExpressionContext,
  owner: string,
  signal?: AbortSignal,
): Promise<unknown> {
  let plan: ExpressionPlan;
  try {
    plan = planFor(expression, owner);
  } catch (err) {
    throw new ExpressionError(expression, reasonOf(err));
  }
  if (plan.namePath) {
    const read = readNamePath(context, plan.namePath);
    if (read) return read.value;
  }
  if (plan.comparison) {
    const compared = evaluateInline(plan.comparison, context);
    if (compared) return compared.value;
  }
  if (plan.calc) {
    const calculated = evaluateCalc(plan.calc, context);
    if (calculated) return calculated.value;
  }
  try {
    return await offThread(expression, contextFor(plan.needs, context), owner, signal);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new ExpressionError(expression, reasonOf(err));
  }
}

export function reasonOf(err: unknown): string {
  if (err && typeof err === "object" && "message" in err) {
    const e = err as { message: string; position?: number };
    return e.position !== undefined ? `${e.message} (at character ${e.position})` : e.message;
  }
  return String(err);
}

/** Whether a `condition` that yielded `value` lets its step run: missing values count as false. */
export function holds(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && value !== 0 && value !== "";
}
