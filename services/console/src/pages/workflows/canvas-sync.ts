import type { CanvasGraph } from "@wf/shared/canvas";

/**
 * What the canvas draws: the text's graph while the text is valid; while it is not, the last
 * valid graph, with the text's problems on the steps that still exist there (the others only in
 * the banner). A text that was never valid is drawn as far as it could be read.
 */
export function shownGraph(current: CanvasGraph, good: CanvasGraph | null): CanvasGraph {
  if (!good || good === current) return current;
  const ids = new Set(good.nodes.map((node) => node.id));
  return {
    ...good,
    issues: current.issues.map((issue) =>
      issue.node === undefined || ids.has(issue.node) ? issue : { ...issue, node: undefined },
    ),
  };
}
