import {
  Lexer,
  isCollection,
  isPair,
  isScalar,
  isSeq,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import type { JsonValue } from "../workflow/schema-basics";
import type { CollectionValue } from "./types";
import { contentEnd, pairEnd } from "./extent";
import { column, commentColumn, lineAt, lineEnd, lineStart } from "./text";

/** Block lines at column `col` for a value, each ending in a newline. */
export type WriteBlock = (value: CollectionValue, col: number) => string;

/** One entry of a block collection as written. */
interface Entry {
  /** A mapping entry's key; undefined for a list's item (and a key that is not a scalar, which matches nothing). */
  key: string | undefined;
  /** Its value as JSON, which tells an entry left as it was. */
  json: string;
  /** The value's node: a pair's value, or the item. */
  value: unknown;
  /** `[from, at)`: the comment and blank lines above it; `[at, to)`: its own lines, with the comments inside them. */
  from: number;
  at: number;
  to: number;
}

function isBlankOrComment(line: string): boolean {
  return line.trim() === "" || commentColumn(line) >= 0;
}

/** Past the comment lines right after an entry that are indented deeper than the entries: they read as its end. */
function tailEnd(text: string, end: number, col: number): number {
  let to = end;
  for (let at = end; at < text.length;) {
    const line = lineAt(text, at);
    const next = lineEnd(text, at + 1);
    if (commentColumn(line) > col) to = next;
    else if (line.trim() !== "") break;
    at = next;
  }
  return to;
}

/**
 * The entries of a block collection, its entries at column `col`, one after the other from the line of the first to
 * the line of the last one's end: a comment line belongs to the entry below it, unless it is indented deeper than the
 * entries (see tailEnd).
 */
function entriesOf(text: string, doc: Document, node: YAMLMap | YAMLSeq, col: number): Entry[] {
  const items = node.items as readonly (Pair | Node | null)[];
  let from = lineStart(text, node.range?.[0] ?? 0);
  return items.map((item, i) => {
    const end = lineEnd(text, isPair(item) ? pairEnd(item) : contentEnd(item));
    const to = i === items.length - 1 ? end : tailEnd(text, end, col);
    let at = from;
    while (at < to && isBlankOrComment(lineAt(text, at))) at = lineEnd(text, at + 1);
    const value = isPair(item) ? item.value : item;
    const json = JSON.stringify((value as Node | null)?.toJS(doc) ?? null);
    const key = isPair(item) && isScalar(item.key) ? String(item.key.value) : undefined;
    const entry = { key, json, value, from, at, to };
    from = to;
    return entry;
  });
}

/** Whether `node` is a block list or mapping with entries, and `value` one of the same kind with entries too. */
export function keepsEntries(node: unknown, value: unknown): node is YAMLMap | YAMLSeq {
  if (!isCollection(node) || node.flow === true || node.items.length === 0) return false;
  if (typeof value !== "object" || value === null || Object.keys(value).length === 0) return false;
  return isSeq(node) === Array.isArray(value);
}

function wholeLines(lines: string): string {
  return lines.endsWith("\n") ? lines : `${lines}\n`;
}

/** The comment at the end of a line, with the spaces before it (`   # rows`); empty when it has none. */
function lineComment(line: string): string {
  const comment = [...new Lexer().lex(line)].findLast((token) => token.startsWith("#"));
  if (comment === undefined) return "";
  const before = line.slice(0, line.trimEnd().length - comment.length);
  return before.slice(before.trimEnd().length) + comment;
}

/** A mapping entry kept by its key, given a new value. */
function changedPair(
  text: string,
  doc: Document,
  entry: Entry,
  key: string,
  value: JsonValue,
  col: number,
  write: WriteBlock,
): string {
  const start = (entry.value as Node | null)?.range?.[0] ?? 0;
  // A list or a mapping below the key that stays one: the key's line and the lines above its first entry stay, and
  // its entries are kept as these are.
  if (keepsEntries(entry.value, value) && lineStart(text, start) > entry.at) {
    const head = text.slice(entry.from, lineStart(text, start));
    return head + keptBlock(text, doc, entry.value, value as CollectionValue, column(text, start), write);
  }
  const fresh = write({ [key]: value }, col);
  return text.slice(entry.from, entry.at) + fresh.replace("\n", `${lineComment(lineAt(text, entry.at))}\n`);
}

/**
 * Block lines for `value` in place of the block collection `old` (see keepsEntries), its entries at column `col`: from
 * the line of its first entry to the line its last one ends on, which is what replaceValue replaces. What a person
 * wrote about the entries that stay is kept with them:
 *
 * - a list's item stays when the new list has the same value (the first one left, for a value written twice): its lines
 *   are kept as they are, with the comment lines above it and the comments on and inside its lines;
 * - a mapping's entry stays by its key: left as it was, it is kept the same way; given a new value, it keeps the
 *   comment lines above it and the comment on its key's line, and a list or mapping below it keeps its own entries so.
 *
 * The entries go in the new value's order; new ones, and a list's changed items, are written anew by `write`. The
 * comments of entries that went go with them.
 */
export function keptBlock(
  text: string,
  doc: Document,
  old: YAMLMap | YAMLSeq,
  value: CollectionValue,
  col: number,
  write: WriteBlock,
): string {
  const entries = entriesOf(text, doc, old, col);
  const taken = new Set<Entry>();
  const take = (match: (entry: Entry) => boolean): Entry | undefined => {
    const entry = entries.find((e) => !taken.has(e) && match(e));
    if (entry) taken.add(entry);
    return entry;
  };
  const kept = (entry: Entry): string => wholeLines(text.slice(entry.from, entry.to));
  const parts = Array.isArray(value)
    ? value.map((item: JsonValue) => {
        const entry = take((e) => e.json === JSON.stringify(item));
        return entry ? kept(entry) : write([item], col);
      })
    : Object.entries(value).map(([key, item]) => {
        const entry = take((e) => e.key === key);
        if (!entry) return write({ [key]: item }, col);
        return entry.json === JSON.stringify(item) ? kept(entry) : changedPair(text, doc, entry, key, item, col, write);
      });
  // Blank lines part entries: the first one moved up leaves those above it.
  return parts.join("").replace(/^(?:[ \t]*\n)+/, "");
}
