import { isMap, isSeq, type Node, type Pair } from "yaml";

/**
 * Where a node's own text ends. A block collection's `range` runs on over the comment lines and
 * blank lines after its last entry, up to whatever comes next; those belong to the layout
 * around it, not to the node.
 */
export function contentEnd(node: unknown): number {
  if (isMap(node) && !node.flow) {
    const last = node.items[node.items.length - 1];
    if (last) return pairEnd(last);
  } else if (isSeq(node) && !node.flow) {
    const last = node.items[node.items.length - 1];
    if (last) return contentEnd(last);
  }
  return (node as Node | null | undefined)?.range?.[1] ?? 0;
}

/** End of a pair's text: its value's end, or its key's end when the value is empty. */
export function pairEnd(pair: Pair): number {
  return Math.max((pair.key as Node | null)?.range?.[1] ?? 0, contentEnd(pair.value));
}
