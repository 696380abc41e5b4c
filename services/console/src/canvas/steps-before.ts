import type { CanvasGraph, CanvasNode } from "@wf/shared/canvas";

/**
 * The steps that run before `node` and whose output it reads as `steps.<name>`: those before it in its own list
 * (a foreach item's, a parallel branch's) and before each step holding it, outermost first.
 */
export function readableSteps(graph: Pick<CanvasGraph, "nodes" | "groups">, node: CanvasNode): CanvasNode[] {
  const levels: CanvasNode[][] = [];
  let at: CanvasNode | undefined = node;
  for (let hops = 0; at !== undefined && hops <= graph.nodes.length; hops++) {
    const here: CanvasNode = at;
    const before = graph.nodes.filter((n) => n.group === here.group && n.index < here.index && n.name !== undefined);
    levels.unshift(before.sort((a, b) => a.index - b.index));
    if (here.group === undefined) return levels.flat();
    const owner = graph.groups.find((g) => g.id === here.group)?.owner;
    at = graph.nodes.find((n) => n.id === owner);
  }
  return [];
}
