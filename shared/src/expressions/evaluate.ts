import { availableParallelism } from "node:os";
import { EvalPool } from "./eval-pool";
import { contextFor, planFor, readNamePath, type ExpressionPlan } from "./expression-plan";
import { evaluateCalc } from "./inline-arithmetic";
import { evaluateInline } from "./inline-comparison";

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

export const EXPRESSION_LIMITS = {
  deadlineMs: 1_000,
  maxDepth: 500,
  // More than any execution record can hold (a NATS message, 8 MB at most in the deploy
  // configs), so no useful result is refused; bounded, since the main thread parses it.
  maxResultChars: 16 * 1024 * 1024,
  // Per evaluating thread: the largest contexts fit several times over.
  maxHeapMb: 512,
} as const;

// Two hosts at least, so that one runaway expression leaves the other to everyone else.
const POOL_SIZE = Math.min(4, Math.max(2, availableParallelism()));
let pool: EvalPool | undefined;

/**
 * Evaluates one JSONata expression. Only parsing (cached), reading a bare path of names through
 * plain objects (readNamePath), comparing such paths with scalar literals (inline-comparison.ts)
 * and arithmetic or joins of them (inline-arithmetic.ts) happen on the calling thread; everything
 * else runs in the expression pool, stopped at the deadline, with only the part of the context it
 * can read, `owner` served in turn with the others (EvalPool) (docs/sandbox.md#expression-hosts).
 */
/** `signal`: the run's; once it aborts, an evaluation still waiting for a host is dropped and its reason thrown. */
export async function evaluateExpression(
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
    return await expressionHosts().evaluate(expression, contextFor(plan.needs, context), owner, signal);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new ExpressionError(expression, reasonOf(err));
  }
}

/** The process's expression hosts, started on first need: expressions, and answers checked by `output_schema`s. */
export function expressionHosts(): EvalPool {
  pool ??= new EvalPool({ size: POOL_SIZE, ...EXPRESSION_LIMITS });
  return pool;
}

function reasonOf(err: unknown): string {
  if (err && typeof err === "object" && "message" in err) {
    const e = err as { message: string; position?: number };
    return e.position !== undefined ? `${e.message} (at character ${e.position})` : e.message;
  }
  return String(err);
}

/** `condition`: a bare expression; missing values count as false. */
export async function evaluateCondition(
  expression: string,
  context: ExpressionContext,
  owner: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const v = await evaluateExpression(expression, context, owner, signal);
  return v !== undefined && v !== null && v !== false && v !== 0 && v !== "";
}
