import { Document, Scalar, isCollection, parseDocument, visit, type Node, type Pair } from "yaml";
import type { PathSegment } from "../workflow/locate";
import { YAML_OPTIONS } from "../workflow/validate";
import { applyEdits } from "./edits";
import { contentEnd } from "./extent";
import { blockLines, keyComment, splitKeyComment } from "./field-text";
import { keepsEntries, keptBlock } from "./kept-comments";
import { column, lineEnd, lineStart, linesAt, removalStart, shiftLines } from "./text";
import type { CollectionValue, TextEdit } from "./types";

function isEmpty(value: CollectionValue): boolean {
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

/** The value's new nodes, written out whole: no anchors for parts that happen to be the same object. */
function documentOf(value: CollectionValue): Document {
  return new Document(value, { aliasDuplicateObjects: false });
}

// No folding of long strings.
const LINES = { lineWidth: 0, indent: 2 } as const;

/** One line of flow text: `[ a, b ]`, `{ a: 1 }`; a string of several lines in double quotes, with `\n`. */
function flowText(value: CollectionValue): string {
  const doc = documentOf(value);
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === "string" && node.value.includes("\n")) node.type = Scalar.QUOTE_DOUBLE;
    },
  });
  return doc
    .toString({ ...LINES, collectionStyle: "flow", doubleQuotedMinMultiLineLength: Number.POSITIVE_INFINITY })
    .trimEnd();
}

/** Block lines at column `col`, each ending in a newline; lists under keys indented by two, or flush with them. */
function blockText(value: CollectionValue, col: number, indentSeq: boolean): string {
  return shiftLines(documentOf(value).toString({ ...LINES, indentSeq }), col);
}

/** How deep below its key a block value goes: two columns, or none for a list in a file that writes them flush. */
function depth(value: CollectionValue, indentSeq: boolean): number {
  return Array.isArray(value) && !indentSeq ? 0 : 2;
}

/**
 * How a block value is written: anew from the value (`fresh`), keeping the entries that stay with their comments
 * (`kept`, see keptBlock), or as the person typed it (`typed`: its lines flush left, see typedBlock), which must read
 * as the value.
 */
export type Writing = { kind: "fresh" } | { kind: "kept" } | { kind: "typed"; lines: string };

/** The value's block lines at a column, as `writing` says (an existing value's entries are kept by replaceValue). */
function linesOf(value: CollectionValue, writing: Writing, indentSeq: boolean): (col: number) => string {
  return writing.kind === "typed" ? (col) => shiftLines(writing.lines, col) : (col) => blockText(value, col, indentSeq);
}

/**
 * `key: value` for a new pair with its key at `keyCol`, without that first indentation or a final newline: one line in
 * a flow mapping or for an empty value, else the key's line and the value's block lines below it.
 */
export function collectionPair(
  keyText: string,
  value: CollectionValue,
  keyCol: number,
  inFlow: boolean,
  indentSeq: boolean,
  writing: Writing,
): string {
  if (inFlow || isEmpty(value)) return `${keyText}: ${flowText(value)}`;
  const lines = linesOf(value, writing, indentSeq)(keyCol + depth(value, indentSeq));
  return `${keyText}:\n${lines.replace(/\n$/, "")}`;
}

/** `insert` in place of `[from, to)`, keeping a text that ends without a final newline so. */
function replacing(text: string, from: number, to: number, insert: string): TextEdit {
  return { from, to, insert: to === text.length && !text.endsWith("\n") ? insert.replace(/\n$/, "") : insert };
}

/**
 * The edits that give an existing pair a new collection value, written where the old one was: the key, its line's
 * comment and everything around the value stay. A value already written in flow style with items (`{ a: 1 }   # why`)
 * stays one line of flow text, written anew, as does any value in a flow mapping; otherwise the value goes on block
 * lines below the key, at the depth of the block value it replaces. A block list or mapping given a new one keeps its
 * entries that stay with their comments (see keptBlock) when `writing` is `kept`; typed lines are written as they are,
 * on block lines in place of the old value and the comment lines shown above its first entry.
 */
export function replaceValue(
  text: string,
  doc: Document,
  pair: Pair,
  value: CollectionValue,
  inFlow: boolean,
  indentSeq: boolean,
  writing: Writing,
): TextEdit[] {
  // The box showed the comment at the end of the key's line as its first line (see writtenFields): that line, typed,
  // goes back there (a first line that is no comment leaves the key's line without one), the rest below the key.
  const comment = writing.kind === "typed" ? keyComment(text, pair) : undefined;
  if (!comment || writing.kind !== "typed") return valueEdits(text, doc, pair, value, inFlow, indentSeq, writing);
  const split = splitKeyComment(writing.lines);
  const edit: TextEdit =
    split.comment === undefined
      ? { from: comment.start, to: comment.to, insert: "" }
      : { from: comment.from, to: comment.to, insert: split.comment };
  return [edit, ...valueEdits(text, doc, pair, value, inFlow, indentSeq, { kind: "typed", lines: split.below })];
}

function valueEdits(
  text: string,
  doc: Document,
  pair: Pair,
  value: CollectionValue,
  inFlow: boolean,
  indentSeq: boolean,
  writing: Writing,
): TextEdit[] {
  const keyNode = pair.key as Node;
  const old = pair.value as Node | null;
  const keyCol = column(text, keyNode.range?.[0] ?? 0);
  const colon = text.indexOf(":", keyNode.range?.[1] ?? 0) + 1;
  const [start = colon, end = colon] = old?.range ?? [];
  const typed = writing.kind === "typed";
  // Typed block lines stay block lines, whatever the value was written as before.
  const inline =
    inFlow || (!typed && (isEmpty(value) || (isCollection(old) && old.flow === true && old.items.length > 0)));
  const below = linesOf(value, writing, indentSeq);
  if (isCollection(old) && !old.flow && old.items.length > 0) {
    // A block value: its own lines, the comment after its last item included, are what is replaced (its first item
    // starts a line of its own, below the key's line and the comment lines before it; typed lines replace the lines
    // shown with it, see blockLines).
    const shown = typed ? blockLines(text, pair) : undefined;
    const to = shown?.to ?? lineEnd(text, contentEnd(old));
    const from = shown?.from ?? lineStart(text, start);
    if (inline)
      return [
        { from: colon, to: colon, insert: ` ${flowText(value)}` },
        { from: removalStart(text, from, to), to, insert: "" },
      ];
    const at = column(text, start);
    const lines =
      writing.kind === "kept" && keepsEntries(old, value)
        ? keptBlock(text, doc, old, value, at, (part, col) => blockText(part, col, indentSeq))
        : below(at > keyCol || Array.isArray(value) ? at : keyCol + 2);
    return [replacing(text, from, to, lines)];
  }
  // A scalar (a block scalar's lines included), a flow collection, or nothing after the colon.
  const to = end > start && text[end - 1] === "\n" ? end - 1 : end;
  const written = to > start;
  if (inline) {
    const flow = flowText(value);
    return [written ? { from: start, to, insert: flow } : { from: colon, to: colon, insert: ` ${flow}` }];
  }
  const at = lineEnd(text, written ? to : colon);
  return [
    ...(written ? [{ from: colon, to, insert: "" }] : []),
    { from: at, to: at, insert: linesAt(text, at, below(keyCol + depth(value, indentSeq))) },
  ];
}

/** Whether the text after `edits` holds `value` at `path` (the same data, read as JSON reads it). */
export function readsCollection(
  text: string,
  edits: readonly TextEdit[],
  path: readonly PathSegment[],
  value: CollectionValue,
): boolean {
  const doc = parseDocument(applyEdits(text, edits).text, YAML_OPTIONS);
  if (doc.errors.length > 0) return false;
  const node: unknown = doc.getIn(path, true);
  try {
    return isCollection(node) && JSON.stringify(node.toJS(doc)) === JSON.stringify(value);
  } catch {
    // An alias whose anchor is gone, or comes after it, is no error of the parse: it throws once read.
    return false;
  }
}
