/**
 * A template inside a string value: `{{`, then the shortest text up to `}}`, the expression. How the service renders
 * them (template-render.ts) and how the console finds the one to preview, so that the two cannot read a value
 * differently.
 */
export const TEMPLATE_PART = /\{\{([\s\S]*?)\}\}/g;

const WHOLE = /^\s*\{\{([\s\S]*?)\}\}\s*$/;

/** The expression of a string that is one whole template, which yields its typed value; null for any other string. */
export function wholeTemplate(s: string): string | null {
  const whole = WHOLE.exec(s);
  return whole && !whole[1]!.includes("}}") && s.indexOf("{{") === s.lastIndexOf("{{") ? whole[1]!.trim() : null;
}
