import type { CanvasGraph } from "@wf/shared/canvas";

/** The names of the foreach steps holding a node, outermost first: a step test names an item of each. */
export function foreachLineage(graph: Pick<CanvasGraph, "nodes" | "groups">, nodeId: string): string[] {
  const byId = new Map(graph.groups.map((g) => [g.id, g]));
  const names: string[] = [];
  let group = byId.get(graph.nodes.find((n) => n.id === nodeId)?.group ?? "");
  while (group) {
    if (group.kind === "foreach") names.unshift(graph.nodes.find((n) => n.id === group!.owner)?.name ?? group.owner);
    group = group.parent === undefined ? undefined : byId.get(group.parent);
  }
  return names;
}
