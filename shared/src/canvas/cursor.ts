import { innermostAt } from "./graph";
import type { CanvasGraph, SourceRange } from "./types";

/**
 * The innermost step whose range holds the cursor at `offset` (its end included, where a cursor after the last
 * character sits).
 */
export function nodeAt(graph: CanvasGraph, offset: number): string | undefined {
  return innermostAt(graph.nodes, offset)?.id;
}

/** Where a node's step is in the text, to select or reveal it. */
export function rangeOf(graph: CanvasGraph, id: string): SourceRange | undefined {
  return graph.nodes.find((node) => node.id === id)?.range;
}
