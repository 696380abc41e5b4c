export {
  evaluateExpression,
  evaluateCondition,
  ExpressionError,
  type ExpressionContext,
} from "./evaluate";
export { renderTemplate, hasTemplate } from "./template";
