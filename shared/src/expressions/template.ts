import { jsonTextOf } from "../text/json-texts";
import { evaluateExpression, type ExpressionContext } from "./evaluate";

const WHOLE = /^\s*\{\{([\s\S]*?)\}\}\s*$/;
const PART = /\{\{([\s\S]*?)\}\}/g;

/**
 * Renders `{{ … }}` templates inside any value. A string that is one whole template yields the
 * typed value; otherwise values are interpolated as text (objects as JSON, missing as ""). The
 * expressions are evaluated for `owner` (evaluateExpression).
 */
export async function renderTemplate(value: unknown, context: ExpressionContext, owner: string): Promise<unknown> {
  if (typeof value === "string") return renderString(value, context, owner);
  if (Array.isArray(value)) return Promise.all(value.map((v) => renderTemplate(v, context, owner)));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await renderTemplate(v, context, owner);
    return out;
  }
  return value;
}

async function renderString(s: string, context: ExpressionContext, owner: string): Promise<unknown> {
  if (!s.includes("{{")) return s;
  const whole = WHOLE.exec(s);
  if (whole && !whole[1]!.includes("}}") && s.indexOf("{{") === s.lastIndexOf("{{")) {
    const v = await evaluateExpression(whole[1]!.trim(), context, owner);
    return v === undefined ? null : v;
  }
  const parts: Promise<string>[] = [];
  const literals: string[] = [];
  let last = 0;
  for (const m of s.matchAll(PART)) {
    literals.push(s.slice(last, m.index));
    parts.push(evaluateExpression(m[1]!.trim(), context, owner).then(asText));
    last = m.index! + m[0].length;
  }
  const texts = await Promise.all(parts);
  let out = "";
  texts.forEach((t, i) => (out += literals[i] + t));
  return out + s.slice(last);
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
