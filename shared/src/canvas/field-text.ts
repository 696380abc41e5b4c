import { isCollection, parseDocument, type Node, type Pair } from "yaml";
import { contentEnd } from "./extent";
import { column, commentColumn, lineAt, lineEnd, lineStart, shiftLines } from "./text";

/**
 * The lines a block list or mapping with entries is written on, below its key: `[from, to)` from the first comment line
 * between the key's line and the first entry (or the first entry's line) to the end of the last entry's line and the
 * comment lines right after it at the entries' column or deeper, its entries at column `col`.
 */
export interface BlockLines {
  from: number;
  to: number;
  col: number;
}

export function blockLines(text: string, pair: Pair): BlockLines | undefined {
  const value = pair.value;
  if (!isCollection(value) || value.flow === true || value.items.length === 0) return undefined;
  const start = value.range?.[0] ?? 0;
  const first = lineStart(text, start);
  let from = lineEnd(text, (pair.key as Node | null)?.range?.[1] ?? 0);
  // Blank lines under the key are the layout's; a line other than a comment there (a tag, an anchor) is the value's
  // own, and the value is not shown as lines.
  while (from < first && lineAt(text, from).trim() === "") from = lineEnd(text, from + 1);
  for (let at = from; at < first; at = lineEnd(text, at + 1)) {
    const line = lineAt(text, at);
    if (line.trim() !== "" && commentColumn(line) < 0) return undefined;
  }
  const col = column(text, start);
  let to = lineEnd(text, contentEnd(value));
  // Comment lines right after the last entry, at its column or deeper, are the value's when its entries are deeper
  // than the key (the next key's comments are at the key's column): a comment typed at the end stays in view.
  if (col > column(text, (pair.key as Node | null)?.range?.[0] ?? 0))
    while (to < text.length && commentColumn(lineAt(text, to)) >= col) to = lineEnd(text, to + 1);
  return { from, to, col };
}

/** The block's lines as a person reads them on their own: flush left, without the final newline. */
export function linesText(text: string, lines: BlockLines): string {
  return shiftLines(text.slice(lines.from, lines.to), -lines.col).replace(/\n$/, "");
}

/**
 * A field's text typed as a block list or mapping (`- a  # why`), as whole lines flush left: blank lines at its start
 * and end, and the indentation all its lines share, go. Undefined for any other text (flow `[a, b]`, a scalar, nothing,
 * text that does not parse), which is written from its value.
 */
export function typedBlock(typed: string): string | undefined {
  const doc = parseDocument(typed, { logLevel: "silent" });
  const value = doc.contents;
  if (doc.errors.length > 0 || !isCollection(value) || value.flow === true || value.items.length === 0)
    return undefined;
  const lines = typed
    .replace(/\s+$/, "")
    .replace(/^(?:[ \t]*\n)+/, "")
    .split("\n");
  const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length));
  return `${lines.map((l) => (l.trim() === "" ? "" : l.slice(indent))).join("\n")}\n`;
}

/**
 * The comment at the end of the key's line of a block list or mapping with entries (`items:   # why`): `[from, to)`
 * from the `#` to the line's end, and from the end of what precedes it (`start`, so the spaces before it go with it).
 */
export interface KeyComment {
  start: number;
  from: number;
  to: number;
}

export function keyComment(text: string, pair: Pair): KeyComment | undefined {
  if (!blockLines(text, pair)) return undefined;
  const colon = text.indexOf(":", (pair.key as Node | null)?.range?.[1] ?? 0) + 1;
  const end = lineEnd(text, colon);
  const to = text[end - 1] === "\n" ? end - 1 : end;
  const rest = text.slice(colon, to);
  // Only a comment after the colon: a tag or an anchor there is the value's.
  if (!rest.trimStart().startsWith("#")) return undefined;
  return { start: colon, from: colon + rest.indexOf("#"), to };
}

/**
 * Typed block lines as the comment they give the key's line (their first line, when it is a comment alone) and the lines
 * below the key: how the box that showed the key's comment as its first line (see writtenFields) is written back.
 */
export function splitKeyComment(lines: string): { comment: string | undefined; below: string } {
  const newline = lines.indexOf("\n");
  const first = newline < 0 ? lines : lines.slice(0, newline);
  if (commentColumn(first) < 0) return { comment: undefined, below: lines };
  return { comment: first.trim(), below: lines.slice(newline + 1) };
}
