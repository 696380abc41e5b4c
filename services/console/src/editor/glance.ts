/**
 * A value as indented JSON, cut to `lines` lines of `lineChars` characters, saying what was left out: a glance at the
 * data, not a viewer (the step's page has it whole). No CodeMirror here: the expression preview's worker cuts with it.
 */
export function glance(value: unknown, lines = 16, lineChars = 100): string {
  const all = (JSON.stringify(value, null, 2) ?? "undefined").split("\n");
  const shown = all
    .slice(0, lines)
    .map((line) => (line.length > lineChars ? `${line.slice(0, lineChars - 1)}…` : line));
  const left = all.length - shown.length;
  return left > 0 ? `${shown.join("\n")}\n… ${left} more line${left === 1 ? "" : "s"}` : shown.join("\n");
}
