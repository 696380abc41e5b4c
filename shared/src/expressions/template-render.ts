import { jsonTextOf } from "../text/json-texts";
import { EXPRESSION_LIMITS, ExpressionError, type ExpressionContext } from "./evaluation";
import { TEMPLATE_PART, wholeTemplate } from "./template-syntax";

/** How one expression of a template is evaluated: the service's expression hosts, or the console preview's worker. */
export type TemplateEvaluator = (
  expression: string,
  context: ExpressionContext,
  owner: string,
  signal?: AbortSignal,
) => Promise<unknown>;

/**
 * Renders `{{ … }}` templates inside any value, each expression evaluated by `evaluate`. A string that is one whole
 * template yields the typed value; otherwise values are interpolated as text (objects as JSON, missing as ""). No Node
 * module in it, so that the console's preview renders a value as a run does (docs/console.md#the-build-loop).
 * `signal`: the run's (see evaluateExpression).
 */
export async function renderTemplateWith(
  evaluate: TemplateEvaluator,
  value: unknown,
  context: ExpressionContext,
  owner: string,
  signal?: AbortSignal,
): Promise<unknown> {
  return render(value, { evaluate, context, owner, budget: new RenderBudget(signal) });
}

interface Rendering {
  evaluate: TemplateEvaluator;
  context: ExpressionContext;
  owner: string;
  budget: RenderBudget;
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

async function render(value: unknown, r: Rendering): Promise<unknown> {
  if (typeof value === "string") return renderString(value, r);
  if (Array.isArray(value)) return Promise.all(value.map((v) => render(v, r)));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await render(v, r);
    return out;
  }
  return value;
}

async function renderString(s: string, { evaluate, context, owner, budget }: Rendering): Promise<unknown> {
  if (!s.includes("{{")) return s;
  const whole = wholeTemplate(s);
  if (whole !== null) {
    const v = await evaluate(whole, context, owner, budget.signal);
    budget.spend(textSize(v), whole);
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
    parts.push(evaluate(expression, context, owner, budget.signal).then(asText));
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
