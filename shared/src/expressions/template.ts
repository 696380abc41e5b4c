import { jsonTextOf } from "../text/json-texts";
import { EXPRESSION_LIMITS, ExpressionError, evaluateExpression, type ExpressionContext } from "./evaluate";
import { TEMPLATE_PART } from "./template-syntax";

const WHOLE = /^\s*\{\{([\s\S]*?)\}\}\s*$/;

/**
 * Renders `{{ … }}` templates inside any value. A string that is one whole template yields the
 * typed value; otherwise values are interpolated as text (objects as JSON, missing as ""). The
 * expressions are evaluated for `owner` (evaluateExpression).
 */
/** `signal`: the run's (see evaluateExpression). */
export async function renderTemplate(
  value: unknown,
  context: ExpressionContext,
  owner: string,
  signal?: AbortSignal,
): Promise<unknown> {
  return render(value, context, owner, new RenderBudget(signal));
}

/**
 * What one value's templates may yield in all, in characters of text: each expression's result is bounded, but a
 * template repeating a large output thousands of times would build a text (or a value whose JSON is) hundreds of
 * megabytes long on the executor's thread, stalling every tenant's executions while it is made and measured.
 */
class RenderBudget {
  private used = 0;
  /** The run's, which each evaluation of the value is dropped with. */
  constructor(readonly signal?: AbortSignal) {}
  spend(chars: number, expression: string): void {
    this.used += chars;
    if (this.used > EXPRESSION_LIMITS.maxResultChars)
      throw new ExpressionError(
        expression,
        `the templates of this value would yield over ${EXPRESSION_LIMITS.maxResultChars.toLocaleString("en")} characters`,
      );
  }
}

async function render(
  value: unknown,
  context: ExpressionContext,
  owner: string,
  budget: RenderBudget,
): Promise<unknown> {
  if (typeof value === "string") return renderString(value, context, owner, budget);
  if (Array.isArray(value)) return Promise.all(value.map((v) => render(v, context, owner, budget)));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await render(v, context, owner, budget);
    return out;
  }
  return value;
}

async function renderString(
  s: string,
  context: ExpressionContext,
  owner: string,
  budget: RenderBudget,
): Promise<unknown> {
  if (!s.includes("{{")) return s;
  const whole = WHOLE.exec(s);
  if (whole && !whole[1]!.includes("}}") && s.indexOf("{{") === s.lastIndexOf("{{")) {
    const expression = whole[1]!.trim();
    const v = await evaluateExpression(expression, context, owner, budget.signal);
    budget.spend(textSize(v), expression);
    return v === undefined ? null : v;
  }
  const parts: Promise<string>[] = [];
  const expressions: string[] = [];
  const literals: string[] = [];
  let last = 0;
  for (const m of s.matchAll(TEMPLATE_PART)) {
    const expression = m[1]!.trim();
    literals.push(s.slice(last, m.index));
    expressions.push(expression);
    parts.push(evaluateExpression(expression, context, owner, budget.signal).then(asText));
    last = m.index! + m[0].length;
  }
  const texts = await Promise.all(parts);
  let out = "";
  texts.forEach((t, i) => {
    budget.spend(literals[i]!.length + t.length, expressions[i]!);
    out += literals[i] + t;
  });
  return out + s.slice(last);
}

/** Sizes of values' JSON by identity: one output placed a thousand times is measured once. */
const jsonSizes = new WeakMap<object, number>();

/** About the characters a value adds to what its template yields: its text, or its JSON's. */
function textSize(v: unknown): number {
  if (typeof v === "string") return v.length;
  if (v === null || typeof v !== "object") return 8;
  const kept = jsonTextOf(v);
  if (kept !== undefined) return kept.length;
  let size = jsonSizes.get(v);
  if (size === undefined) {
    size = JSON.stringify(v)?.length ?? 0;
    jsonSizes.set(v, size);
  }
  return size;
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return "";
  if (typeof v === "string") return v;
  // A step's output in a prompt, say: as the text its runner wrote, where it is kept (json-texts.ts).
  return typeof v === "object" ? (jsonTextOf(v) ?? JSON.stringify(v)) : String(v);
}

/** Does the value contain any template? Lets callers skip rendering plain data. */
export function hasTemplate(value: unknown): boolean {
  if (typeof value === "string") return value.includes("{{");
  if (Array.isArray(value)) return value.some(hasTemplate);
  if (value !== null && typeof value === "object") return Object.values(value).some(hasTemplate);
  return false;
}
