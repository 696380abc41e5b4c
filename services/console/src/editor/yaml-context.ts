/**
 * Where the cursor is in a block-style YAML file, read from indentation alone: the file being
 * typed is often not valid YAML yet, and a parser's guess at a broken file would move the
 * suggestions around as the person types, while indentation says what they mean.
 */

/**
 * One step from the root to the cursor: a key of a mapping (with that mapping's scalar values), or an item of a
 * sequence.
 */
export type Segment = { key: string; values: Record<string, string> } | { item: true };

export interface YamlContext {
  /** From the root to the mapping the cursor is in. */
  path: Segment[];
  /** The scalar values already set in the cursor's mapping, the cursor's own line left out. */
  values: Record<string, string>;
  /** Completing a key, or the value of `key`. */
  kind: "key" | "value";
  key?: string;
  /** 0-based column of the word being completed, and that word as typed so far. */
  from: number;
  word: string;
  /** The column the keys of the cursor's mapping start at. */
  indent: number;
}

interface LineShape {
  /** Column of the first character that is not a space; -1 for a blank or comment line. */
  first: number;
  /** Columns of the `- ` marks before the content. */
  dashes: number[];
  key?: { name: string; col: number; value: string; afterDash: boolean };
}

const KEY = /^("[^"]*"|'[^']*'|[^\s#'"{}[\],:][^:#]*?)[ \t]*:(?=[ \t]|$)/;

function unquote(text: string): string {
  return /^(["']).*\1$/.test(text) ? text.slice(1, -1) : text;
}

/** A scalar as written after `key:`, its comment and quotes dropped. */
function scalar(text: string): string {
  const quoted = /^("[^"]*"|'[^']*')/.exec(text);
  if (quoted) return unquote(quoted[1]!);
  return text.replace(/(^|\s)#.*$/, "").trim();
}

export function shapeOf(line: string): LineShape {
  if (/^\s*(#.*)?$/.test(line)) return { first: -1, dashes: [] };
  let col = line.length - line.trimStart().length;
  const first = col;
  const dashes: number[] = [];
  while (line[col] === "-" && (col + 1 === line.length || line[col + 1] === " ")) {
    dashes.push(col);
    col++;
    while (line[col] === " ") col++;
  }
  const match = KEY.exec(line.slice(col));
  if (!match) return { first, dashes };
  const value = scalar(line.slice(col + match[0].length).trim());
  return { first, dashes, key: { name: unquote(match[1]!.trim()), col, value, afterDash: dashes.length > 0 } };
}

/**
 * The scalar values of the mapping whose keys start at `col` around line `anchor`: up to the
 * line that opens it (its owner, or the `- ` of its item), down to the first line less indented.
 */
export function mappingValues(
  lines: readonly string[],
  anchor: number,
  col: number,
  skipAnchor = false,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (let i = skipAnchor ? anchor - 1 : anchor; i >= 0; i--) {
    const shape = shapeOf(lines[i]!);
    // Deeper lines, and the items of a compact sequence (`- ` at the keys' column), are inside this mapping's values.
    if (shape.first < 0 || shape.first > col || (shape.first === col && shape.dashes[0] === col)) continue;
    if (shape.key?.col === col) values[shape.key.name] ??= shape.key.value;
    if (shape.first < col || shape.key?.col !== col) break;
  }
  valuesBelow(lines, anchor, col, values);
  return values;
}

function valuesBelow(
  lines: readonly string[],
  anchor: number,
  col: number,
  values: Record<string, string>,
): Record<string, string> {
  for (let i = anchor + 1; i < lines.length; i++) {
    const shape = shapeOf(lines[i]!);
    if (shape.first < 0 || shape.first > col) continue;
    if (shape.first < col) break;
    if (shape.key?.col === col) values[shape.key.name] ??= shape.key.value;
  }
  return values;
}

type Container = { map: number } | { seq: number };

/**
 * The path from the root to the mapping (or sequence) at `start` that holds line `lineIndex`,
 * walking up through the owners: null when the line turns out to be inside a block scalar, or
 * in a shape this reading does not follow (flow collections, nested `- -`).
 */
function pathAbove(lines: readonly string[], lineIndex: number, start: Container): Segment[] | null {
  const path: Segment[] = [];
  let at: Container = start;
  if ("seq" in at) path.unshift({ item: true });
  for (let i = lineIndex - 1; i >= 0; i--) {
    const shape = shapeOf(lines[i]!);
    if (shape.first < 0) continue;
    if ("map" in at) {
      if (shape.key?.col === at.map) {
        // A sibling key; when it follows a `- `, the mapping is an item of a sequence.
        if (shape.key.afterDash) {
          path.unshift({ item: true });
          at = { seq: shape.dashes.at(-1)! };
        }
        continue;
      }
      if (shape.first >= at.map) continue;
    } else {
      if (shape.first > at.seq || (shape.first === at.seq && shape.dashes[0] === at.seq)) continue;
    }
    const deepest = "map" in at ? at.map - 1 : at.seq;
    // The owner is `key:` with nothing after it: a value there means the line is inside a block scalar.
    if (!shape.key || shape.key.value !== "" || shape.key.col > deepest) return null;
    path.unshift({ key: shape.key.name, values: mappingValues(lines, i, shape.key.col) });
    if (shape.key.afterDash) {
      path.unshift({ item: true });
      at = { seq: shape.dashes.at(-1)! };
    } else at = { map: shape.key.col };
  }
  return "map" in at && at.map === 0 ? path : null;
}

const VALUE_AT = /^( *)((?:- +)*)("[^"]*"|'[^']*'|[\w$.-]+)[ \t]*:[ \t]+([\w$.-]*)$/;
const KEY_AT = /^( *)((?:- +)*)([\w$.-]*)$/;

/** What is being typed at `column` (0-based) of line `lineIndex`, or null where nothing can be suggested. */
export function contextAt(lines: readonly string[], lineIndex: number, column: number): YamlContext | null {
  const prefix = (lines[lineIndex] ?? "").slice(0, column);
  const value = VALUE_AT.exec(prefix);
  const key = value ? null : KEY_AT.exec(prefix);
  const match = value ?? key;
  if (!match) return null;
  const [, spaces, dashes] = match as unknown as [string, string, string];
  const indent = spaces.length + dashes.length;
  const dashCol = dashes === "" ? null : spaces.length + dashes.trimEnd().lastIndexOf("-");
  const path = pathAbove(lines, lineIndex, dashCol === null ? { map: indent } : { seq: dashCol });
  if (!path) return null;
  // An item's mapping starts on the cursor's line: only the lines below belong to it.
  const values =
    dashCol === null ? mappingValues(lines, lineIndex, indent, true) : valuesBelow(lines, lineIndex, indent, {});
  if (value) {
    const word = value[4]!;
    return { path, values, kind: "value", key: unquote(value[3]!), from: column - word.length, word, indent };
  }
  const word = key![3]!;
  return { path, values, kind: "key", from: column - word.length, word, indent };
}
