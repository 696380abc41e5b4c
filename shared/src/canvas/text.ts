/** Start of the line holding `offset`. */
export function lineStart(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/**
 * Start of the line after the one holding the character before `end`: where a span ending at `end` ends as whole lines.
 */
export function lineEnd(text: string, end: number): number {
  if (end > 0 && text[end - 1] === "\n") return end;
  const newline = text.indexOf("\n", end);
  return newline < 0 ? text.length : newline + 1;
}

export function column(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

/** The line starting at `start`, without its newline. */
export function lineAt(text: string, start: number): string {
  const newline = text.indexOf("\n", start);
  return text.slice(start, newline < 0 ? text.length : newline);
}

function isBlankLine(line: string): boolean {
  return line.trim() === "";
}

/** The column of the `#` of a line holding only a comment; -1 for any other line. */
export function commentColumn(line: string): number {
  const col = line.length - line.trimStart().length;
  return line[col] === "#" ? col : -1;
}

/** Start of the line before the one starting at `start`; -1 on the first line. */
export function previousLineStart(text: string, start: number): number {
  return start === 0 ? -1 : lineStart(text, start - 1);
}

/** Start of the run of blank lines that ends at `start` (a line start). */
export function blankRunBefore(text: string, start: number): number {
  let at = start;
  for (
    let prev = previousLineStart(text, at);
    prev >= 0 && isBlankLine(text.slice(prev, at));
    prev = previousLineStart(text, at)
  )
    at = prev;
  return at;
}

/** End of the run of blank lines that starts at `start` (a line start). */
export function blankRunAfter(text: string, start: number): number {
  let at = start;
  while (at < text.length && isBlankLine(lineAt(text, at))) at = lineEnd(text, at + 1);
  return at;
}

/**
 * Moves whole lines `delta` columns right (or left), keeping their relative indentation, so block
 * scalars and nested collections read the same at their new depth. Empty lines stay empty.
 */
export function shiftLines(lines: string, delta: number): string {
  if (delta === 0) return lines;
  return lines
    .split("\n")
    .map((line) => {
      if (line === "") return line;
      if (delta > 0) return " ".repeat(delta) + line;
      const spaces = line.length - line.trimStart().length;
      return line.slice(Math.min(-delta, spaces));
    })
    .join("\n");
}

/**
 * `lines` (whole lines, each ending in a newline) inserted at the line start `at`, in a text that may lack a final
 * newline.
 */
export function linesAt(text: string, at: number, lines: string): string {
  return at === text.length && at > 0 && !text.endsWith("\n") ? "\n" + lines.replace(/\n$/, "") : lines;
}

/**
 * Where a removal of whole lines `[from, to)` should start: one reaching the end of a text
 * without a final newline takes the newline before it instead, so the text still ends without one.
 */
export function removalStart(text: string, from: number, to: number): number {
  return to === text.length && from > 0 && !text.endsWith("\n") ? from - 1 : from;
}
