/**
 * `steps.fetch`, or `steps.\`my-step\`` for a name JSONata would read as a subtraction. Not after
 * `.` or `$` (a field or variable of that name) or a name character. One pattern for the validator
 * (a reference to no step is a problem) and the canvas (its data edges, renames, deletes).
 */
export const STEP_REFERENCE = /(?<![\w$.`])steps\.(?:([A-Za-z_][A-Za-z0-9_]*)|`([^`\n]+)`)/g;

/**
 * The insides of each `{{ … }}` of a string, as [start, end) offsets; a template ends at the first `}}`, as in the
 * renderer.
 */
export function templateSpans(raw: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let open = raw.indexOf("{{"); open >= 0;) {
    const close = raw.indexOf("}}", open + 2);
    spans.push([open + 2, close < 0 ? raw.length : close]);
    if (close < 0) break;
    open = raw.indexOf("{{", close + 2);
  }
  return spans;
}

/**
 * Each step a string names where it is evaluated (its templates, or all of it for a bare expression such as
 * `condition`), with the reference's offset.
 */
export function stepReferences(text: string, whole: boolean): { name: string; index: number }[] {
  const found: { name: string; index: number }[] = [];
  for (const [from, to] of whole ? [[0, text.length] as [number, number]] : templateSpans(text)) {
    for (const match of text.slice(from, to).matchAll(STEP_REFERENCE))
      found.push({ name: match[1] ?? match[2] ?? "", index: from + match.index });
  }
  return found;
}
