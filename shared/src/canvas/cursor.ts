import { innermostAt } from "./graph";
import type { CanvasGraph, SourceRange } from "./types";

/** What may follow a step's last value on its line: blanks, and a comment. */
const TRAILING = /^[ \t]*(#.*)?$/;

/**
 * The innermost step whose range holds the cursor at `offset` in `text`, the text `graph` was read from. A step's
 * range ends with its last value; a cursor after it on that line (after a comment there, or at the line's end) is
 * in the step too, as the person reads the line.
 */
export function nodeAt(graph: CanvasGraph, text: string, offset: number): string | undefined {
  const reach = (end: number) => {
    if (text[end - 1] === "\n") return end;
    const lineEnd = text.indexOf("\n", end);
    const stop = lineEnd === -1 ? text.length : lineEnd;
    return TRAILING.test(text.slice(end, stop)) ? stop : end;
  };
  const nodes = graph.nodes.map((node) => ({ ...node, range: { ...node.range, end: reach(node.range.end) } }));
  return innermostAt(nodes, offset)?.id;
}

/** Where a node's step is in the text, to select or reveal it. */
export function rangeOf(graph: CanvasGraph, id: string): SourceRange | undefined {
  return graph.nodes.find((node) => node.id === id)?.range;
}
