/**
 * A template inside a string value: `{{`, then the shortest text up to `}}`, the expression. How the service renders
 * them (template.ts) and how the console finds the one to preview, so that the two cannot read a value differently.
 */
export const TEMPLATE_PART = /\{\{([\s\S]*?)\}\}/g;
