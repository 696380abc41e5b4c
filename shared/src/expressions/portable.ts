import { EXPRESSION_LIMITS, evaluateExpressionWith, type ExpressionContext } from "./evaluation";
import { evaluateToJson } from "./result-json.mjs";
import { renderTemplateWith } from "./template-render";

/**
 * The service's expression evaluation with no Node module in it, for a browser: the console previews an expression
 * with it in a Web Worker, which it terminates past its own time bound (docs/console.md#the-build-loop).
 */
export {
  EXPRESSION_LIMITS,
  ExpressionError,
  evaluateExpressionWith,
  holds,
  type ExpressionContext,
  type OffThreadEvaluator,
} from "./evaluation";
export { planFor, type ContextNeeds } from "./expression-plan";
export { varyingCall } from "./varying-calls";

/**
 * evaluateExpression's result, with what the service gives an expression host's thread done on this one, JSON and all:
 * for a caller that is itself a thread it can stop (the host's deadline and heap bound are not here).
 */
export function evaluateHere(expression: string, context: ExpressionContext, owner: string): Promise<unknown> {
  return evaluateExpressionWith(
    async (text, part, who) => {
      const json = await evaluateToJson(text, part, who, EXPRESSION_LIMITS);
      return json === undefined ? undefined : JSON.parse(json);
    },
    expression,
    context,
    owner,
  );
}

/** renderTemplate's result, each expression evaluated as evaluateHere does: a value rendered as a run renders it. */
export function renderHere(value: unknown, context: ExpressionContext, owner: string): Promise<unknown> {
  return renderTemplateWith(evaluateHere, value, context, owner);
}
