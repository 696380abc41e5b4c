export {
  evaluateExpression,
  evaluateCondition,
  ExpressionError,
  EXPRESSION_LIMITS,
  type ExpressionContext,
} from "./evaluate";
export { keysRead } from "./expression-plan";
export { renderTemplate, hasTemplate } from "./template";
export { OutputSchema, type SchemaCheck } from "./output-schema";
