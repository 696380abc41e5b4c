import { availableParallelism } from "node:os";
import { EvalPool } from "./eval-pool";
import { EXPRESSION_LIMITS, evaluateExpressionWith, holds, type ExpressionContext } from "./evaluation";

export { EXPRESSION_LIMITS, ExpressionError, type ExpressionContext } from "./evaluation";

// Two hosts at least, so that one runaway expression leaves the other to everyone else.
const POOL_SIZE = Math.min(4, Math.max(2, availableParallelism()));
let pool: EvalPool | undefined;

/**
 * Evaluates one JSONata expression (evaluateExpressionWith): what does not run on the calling thread runs in the
 * expression pool, stopped at the deadline, `owner` served in turn with the others (EvalPool)
 * (docs/sandbox.md#expression-hosts).
 */
/** `signal`: the run's; once it aborts, an evaluation still waiting for a host is dropped and its reason thrown. */
export function evaluateExpression(
  expression: string,
  context: ExpressionContext,
  owner: string,
  signal?: AbortSignal,
): Promise<unknown> {
  return evaluateExpressionWith(
    (text, part, who, aborted) => expressionHosts().evaluate(text, part, who, aborted),
    expression,
    context,
    owner,
    signal,
  );
}

/** The process's expression hosts, started on first need: expressions, and answers checked by `output_schema`s. */
export function expressionHosts(): EvalPool {
  pool ??= new EvalPool({ size: POOL_SIZE, ...EXPRESSION_LIMITS });
  return pool;
}

/** `condition`: a bare expression; missing values count as false. */
export async function evaluateCondition(
  expression: string,
  context: ExpressionContext,
  owner: string,
  signal?: AbortSignal,
): Promise<boolean> {
  return holds(await evaluateExpression(expression, context, owner, signal));
}
