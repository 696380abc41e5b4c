import type { CanvasGraph, CanvasNode } from "@wf/shared/canvas";

/**
 * The names of the top-level steps that run before `node` (before the top-level step holding it,
 * for one inside a foreach or a parallel): the outputs it can read as `steps.<name>.output`.
 */
export function stepsBefore(graph: Pick<CanvasGraph, "nodes" | "groups">, node: CanvasNode): string[] {
  let top: CanvasNode | undefined = node;
  for (let hops = 0; top?.group !== undefined && hops <= graph.nodes.length; hops++) {
    const owner = graph.groups.find((g) => g.id === top!.group)?.owner;
    top = graph.nodes.find((n) => n.id === owner);
  }
  if (!top) return [];
  return graph.nodes
    .filter((n) => n.group === undefined && n.index < top.index && n.name !== undefined)
    .sort((a, b) => a.index - b.index)
    .map((n) => n.name!);
}
