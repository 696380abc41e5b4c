import { isAlias, isMap, isScalar, isSeq, type Document, type Node, type Scalar } from "yaml";

export type PathSegment = string | number;

/** `steps[2].retry.max_attempts`; keys that are not plain names are quoted: `inputs["a b"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

export interface Located {
  /** True when every segment of the path exists in the document. */
  found: boolean;
  /** The node at the path (when found). */
  value: Node | null;
  /** The key node of the last segment, when it is a mapping key. */
  key: Node | null;
  /** The deepest node the path reached: the parent mapping when the last key is missing. */
  deepest: Node | null;
}

function resolve(doc: Document, node: unknown): Node | null {
  if (isAlias(node)) return (node.resolve(doc) as Node | undefined) ?? null;
  return isScalar(node) || isMap(node) || isSeq(node) ? node : null;
}

export function locate(doc: Document, path: readonly PathSegment[]): Located {
  let node = resolve(doc, doc.contents);
  let key: Node | null = null;
  for (const segment of path) {
    let next: { key: Node | null; value: Node | null } | undefined;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair) next = { key: pair.key as Node, value: resolve(doc, pair.value) };
    } else if (isSeq(node) && typeof segment === "number" && segment < node.items.length) {
      next = { key: null, value: resolve(doc, node.items[segment]) };
    }
    if (next === undefined) return { found: false, value: null, key: null, deepest: node };
    key = next.key;
    if (next.value === null) return { found: true, value: null, key, deepest: node };
    node = next.value;
  }
  return { found: true, value: node, key, deepest: node };
}

/** The node an issue points at: see WorkflowIssue for which node that is. */
export function pointedNode(located: Located, at: "key" | "value"): Node | null {
  const { found, value, key, deepest } = located;
  if (found) {
    if (at === "key" && key?.range) return key;
    if (value?.range && value.range[1] > value.range[0]) return value;
    if (key?.range) return key;
  }
  return deepest;
}

/**
 * Source offset of character `index` of a string scalar's value, when the source spells the
 * value verbatim (plain, quoted without escapes, literal block); else the scalar's start.
 */
export function offsetInScalar(node: Scalar, source: string, index: number): number {
  const range = node.range;
  if (!range) return 0;
  const [start, end] = range;
  const raw = source.slice(start, end);
  const value = String(node.value);
  switch (node.type) {
    case "PLAIN":
      return raw === value ? start + index : start;
    case "QUOTE_DOUBLE":
    case "QUOTE_SINGLE":
      return raw.slice(1, -1) === value ? start + 1 + index : start;
    case "BLOCK_LITERAL":
      return start + (offsetInLiteralBlock(raw, value, index) ?? 0);
    default:
      return start;
  }
}

function offsetInLiteralBlock(raw: string, value: string, index: number): number | undefined {
  const [header = "", ...content] = raw.split("\n");
  const before = value.slice(0, index).split("\n");
  const lineNo = before.length - 1;
  const column = before[lineNo]?.length ?? 0;
  const indent = /^ */.exec(content.find((line) => line.trim() !== "") ?? "")?.[0].length ?? 0;
  const sourceLine = content[lineNo];
  if (sourceLine === undefined || sourceLine.slice(indent) !== value.split("\n")[lineNo]) return undefined;
  let offset = header.length + 1;
  for (const line of content.slice(0, lineNo)) offset += line.length + 1;
  return offset + indent + column;
}

/** The path of the innermost node containing `offset`, for issues that come with a position only. */
export function pathAtOffset(doc: Document, offset: number): PathSegment[] {
  const path: PathSegment[] = [];
  let node: unknown = doc.contents;
  const contains = (n: unknown): boolean => {
    const range = (n as Node | null | undefined)?.range;
    return !!range && range[0] <= offset && offset < Math.max(range[2], range[0] + 1);
  };
  for (;;) {
    if (isMap(node)) {
      const pair = node.items.find((p) => contains(p.value) || contains(p.key));
      if (!pair || !isScalar(pair.key)) break;
      path.push(String(pair.key.value));
      if (!contains(pair.value)) break;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = node.items.findIndex((item) => contains(item));
      if (index < 0) break;
      path.push(index);
      node = node.items[index];
    } else break;
  }
  return path;
}
