import { isScalar, type Node, type Pair, type YAMLMap } from "yaml";
import { pairEnd } from "./extent";
import { column, commentColumn, lineAt, lineEnd, lineStart, linesAt, previousLineStart, removalStart } from "./text";
import type { TextEdit } from "./types";

function keyStart(pair: Pair): number {
  return (pair.key as Node).range?.[0] ?? 0;
}

/** A block mapping's key sharing its line with a sequence `-` cannot move or go without taking the dash along. */
function onDashLine(text: string, pair: Pair): boolean {
  const start = keyStart(pair);
  return text.slice(lineStart(text, start), start).trim() !== "";
}

/** The pair's lines with the comment lines above it at its own column and those below it indented deeper. */
function pairLines(text: string, pair: Pair): [number, number] {
  const start = keyStart(pair);
  const col = column(text, start);
  let from = lineStart(text, start);
  for (
    let prev = previousLineStart(text, from);
    prev >= 0 && commentColumn(text.slice(prev, from)) === col;
    prev = previousLineStart(text, from)
  )
    from = prev;
  let to = lineEnd(text, pairEnd(pair));
  while (to < text.length && commentColumn(lineAt(text, to)) > col) to = lineEnd(text, to + 1);
  return [from, to];
}

/**
 * Adds `key: value` to a mapping: before the first of the `before` keys present (so a container's
 * header stays above its steps), else after its last pair. `render` writes the pair for a key at
 * `keyCol`, without that first indentation or a final newline.
 */
export function addPair(
  text: string,
  map: YAMLMap,
  render: (keyCol: number, inFlow: boolean) => string,
  before: readonly string[],
): TextEdit {
  const anchor = map.items.find((pair) => isScalar(pair.key) && before.includes(String(pair.key.value)));
  const last = map.items[map.items.length - 1];
  if (map.flow) {
    const pair = render(0, true);
    if (anchor) return { from: keyStart(anchor), to: keyStart(anchor), insert: `${pair}, ` };
    if (last) return { from: pairEnd(last), to: pairEnd(last), insert: `, ${pair}` };
    const open = (map.range?.[0] ?? 0) + 1;
    return { from: open, to: open, insert: ` ${pair} ` };
  }
  const first = map.items[0];
  const keyCol = first ? column(text, keyStart(first)) : 0;
  const lines = " ".repeat(keyCol) + render(keyCol, false) + "\n";
  if (anchor && !onDashLine(text, anchor)) {
    const at = pairLines(text, anchor)[0];
    return { from: at, to: at, insert: lines };
  }
  const at = last ? lineEnd(text, pairEnd(last)) : lineEnd(text, map.range?.[1] ?? 0);
  return { from: at, to: at, insert: linesAt(text, at, lines) };
}

/** Removes a pair with its comment lines; in a flow mapping, with one of the commas around it. */
export function removePair(text: string, map: YAMLMap, pair: Pair): TextEdit {
  const index = map.items.indexOf(pair);
  const next = map.items[index + 1];
  const prev = map.items[index - 1];
  if (map.flow) {
    if (next) return { from: keyStart(pair), to: keyStart(next), insert: "" };
    if (prev) return { from: pairEnd(prev), to: pairEnd(pair), insert: "" };
    return { from: keyStart(pair), to: pairEnd(pair), insert: "" };
  }
  // The next key moves up onto the dash line, which must stay.
  if (onDashLine(text, pair) && next) return { from: keyStart(pair), to: keyStart(next), insert: "" };
  const [from, to] = pairLines(text, pair);
  return { from: removalStart(text, from, to), to, insert: "" };
}
