import { evaluateExpression, type ExpressionContext } from "./evaluate";
import { renderTemplateWith } from "./template-render";

/**
 * Renders `{{ … }}` templates inside any value (renderTemplateWith), the expressions evaluated for `owner` by the
 * expression hosts (evaluateExpression). `signal`: the run's (see evaluateExpression).
 */
export function renderTemplate(
  value: unknown,
  context: ExpressionContext,
  owner: string,
  signal?: AbortSignal,
): Promise<unknown> {
  return renderTemplateWith(evaluateExpression, value, context, owner, signal);
}

/** Does the value contain any template? Lets callers skip rendering plain data. */
export function hasTemplate(value: unknown): boolean {
  if (typeof value === "string") return value.includes("{{");
  if (Array.isArray(value)) return value.some(hasTemplate);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasTemplate);
  return false;
}
