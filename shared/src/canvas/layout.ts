import type { Node } from "yaml";
import type { Source } from "./source";
import type { ListSite, StepSite, StepTree } from "./steps";
import { blankRunAfter, blankRunBefore, column, lineEnd, linesAt, removalStart, shiftLines } from "./text";
import type { TextEdit } from "./types";

/**
 * A step's text on its way to another place: a block item's lines (its comment lines included)
 * with its `-` at column `col`, or a flow item's text.
 */
export type Piece = { kind: "block"; text: string; col: number } | { kind: "flow"; text: string };

export function pieceOf(source: Source, site: StepSite): Piece {
  if (site.list.seq.flow) return { kind: "flow", text: source.text.slice(site.start, site.end) };
  const text = source.text.slice(site.blockStart, site.blockEnd);
  return { kind: "block", text: text.endsWith("\n") ? text : text + "\n", col: site.list.dashCol };
}

/** How far the file indents a list under its key (`steps:` then `  - name`), so new lists look like the others. */
export function seqIndent(source: Source, tree: StepTree): number {
  const root = tree.root;
  if (!root || root.seq.flow) return 2;
  return Math.max(0, root.dashCol - column(source.text, root.key.start));
}

/** A piece as the lines of a block item at column `col`. */
export function blockLines(piece: Piece, col: number): string {
  if (piece.kind === "block") return shiftLines(piece.text, col - piece.col);
  // Indentation inside a flow collection only has to be deeper than the block around it.
  const [first = "", ...rest] = piece.text.split("\n");
  return (
    [
      " ".repeat(col) + "- " + first,
      ...rest.map((line) => (line.trim() === "" ? "" : " ".repeat(col + 4) + line.trimStart())),
    ].join("\n") + "\n"
  );
}

/** Items of a block list separated by blank lines get a blank line around new ones too. */
function separated(source: Source, list: ListSite): boolean {
  const [a, b] = list.items;
  return !!a && !!b && /\n[ \t]*\n/.test(source.text.slice(a.blockEnd - 1, b.blockStart));
}

/**
 * Removes a step item with its comment lines, and with the blank lines that separated it when
 * there are some, unless that would swallow one of the `keep` offsets (where a move inserts it).
 */
export function removal(source: Source, site: StepSite, keep: readonly number[] = []): TextEdit {
  const { text } = source;
  const list = site.list;
  if (list.seq.flow) {
    const i = site.path[site.path.length - 1] as number;
    const next = list.seq.items[i + 1] as Node | undefined;
    const prev = list.seq.items[i - 1] as Node | undefined;
    if (next?.range) return { from: site.start, to: next.range[0], insert: "" };
    if (prev?.range) return { from: prev.range[1], to: site.end, insert: "" };
    return { from: site.start, to: site.end, insert: "" };
  }
  let from = site.blockStart;
  let to = site.blockEnd;
  const swallows = (a: number, b: number): boolean => keep.some((at) => at > a && at < b);
  const beforeBlank = blankRunBefore(text, from);
  const afterBlank = blankRunAfter(text, to);
  if (afterBlank > to && (beforeBlank < from || site.index === 0)) {
    if (!swallows(from, afterBlank)) to = afterBlank;
  } else if (beforeBlank < from && afterBlank === to && site.index === list.items.length - 1 && site.index > 0) {
    if (!swallows(beforeBlank, to)) from = beforeBlank;
  }
  const start = removalStart(text, from, to);
  return { from: swallows(start, to) ? from : start, to, insert: "" };
}

/** Whether a comment token lies inside `[from, to)`: source tokens are plain objects, so walk them whole. */
function commentInside(token: unknown, from: number, to: number): boolean {
  if (Array.isArray(token)) return token.some((item) => commentInside(item, from, to));
  if (typeof token !== "object" || token === null) return false;
  const { type, offset } = token as { type?: unknown; offset?: unknown };
  if (type === "comment") return typeof offset === "number" && offset >= from && offset < to;
  return Object.values(token).some((value) => commentInside(value, from, to));
}

/**
 * Inserts a piece at `index` among the list's steps (`exclude` left out: a step moving within
 * its own list). A flow list takes a flow piece in place; a block piece turns the flow list into
 * a block list first, its items kept as written, since a block step cannot be written as flow
 * without losing its comments and layout.
 */
export function insertion(
  source: Source,
  tree: StepTree,
  list: ListSite,
  index: number,
  piece: Piece,
  exclude?: StepSite,
): TextEdit[] | string {
  const { text } = source;
  const siblings = list.items.filter((site) => site !== exclude);
  const before = siblings[index];
  const last = siblings[siblings.length - 1];
  if (list.seq.flow && piece.kind === "flow") {
    if (before) return [{ from: before.start, to: before.start, insert: `${piece.text}, ` }];
    if (last) return [{ from: last.end, to: last.end, insert: `, ${piece.text}` }];
    const open = (list.seq.range?.[0] ?? 0) + 1;
    return [{ from: open, to: open, insert: ` ${piece.text} ` }];
  }
  if (list.seq.flow) {
    const [seqStart = 0, seqEnd = 0] = list.seq.range ?? [];
    if (list.key.inFlow || commentInside(list.seq.srcToken, seqStart, seqEnd)) {
      return "the destination list is flow-style text that holds comments or sits in a flow mapping: rewrite it in block style first";
    }
    const col = column(text, list.key.start) + seqIndent(source, tree);
    const items: Piece[] = siblings.map((site) => ({ kind: "flow", text: text.slice(site.start, site.end) }));
    items.splice(index, 0, piece);
    const colon = text.indexOf(":", list.key.end) + 1;
    const at = lineEnd(text, seqEnd);
    return [
      { from: colon, to: seqEnd, insert: "" },
      { from: at, to: at, insert: linesAt(text, at, items.map((item) => blockLines(item, col)).join("")) },
    ];
  }
  const sep = separated(source, list) ? "\n" : "";
  const lines = blockLines(piece, list.dashCol);
  if (before) return [{ from: before.blockStart, to: before.blockStart, insert: lines + sep }];
  if (!last) return "the list has no step to place the new one by";
  return [{ from: last.blockEnd, to: last.blockEnd, insert: linesAt(text, last.blockEnd, sep + lines) }];
}
