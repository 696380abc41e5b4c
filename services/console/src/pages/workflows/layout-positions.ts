import type { CanvasGraph, CanvasOperation, EditSuccess } from "@wf/shared/canvas";

export type Positions = Readonly<Record<string, { x: number; y: number }>>;

/** The steps drawn directly in a container's box, or in its branches' boxes. */
function childrenOf(graph: CanvasGraph, id: string): string[] {
  const groups = new Map(graph.groups.map((group) => [group.id, group]));
  const own = groups.get(id);
  if (!own) return [];
  return [...own.children, ...own.branches.flatMap((branch) => groups.get(branch)?.children ?? [])];
}

function withDescendants(graph: CanvasGraph, id: string): string[] {
  return [id, ...childrenOf(graph, id).flatMap((child) => withDescendants(graph, child))];
}

function without(positions: Positions, ids: readonly string[]): Positions {
  if (!ids.some((id) => id in positions)) return positions;
  const rest = { ...positions };
  for (const id of ids) delete rest[id];
  return rest;
}

/**
 * The positions a person chose, after an operation on the text (`graph` is what the canvas drew
 * before it): a renamed step keeps its place under its new name; a step that moved to another
 * box, whose place was relative to the box it left, is placed afresh, as are the steps a wrap or
 * an unwrap moves; a deleted step's place goes with it. Unchanged positions come back as they were.
 */
export function positionsAfter(
  positions: Positions,
  op: CanvasOperation,
  result: EditSuccess,
  graph: CanvasGraph,
): Positions {
  switch (op.kind) {
    case "renameStep": {
      const place = positions[op.id];
      if (!place || result.id === undefined || result.id === op.id) return positions;
      return { ...without(positions, [op.id]), [result.id]: place };
    }
    case "deleteStep":
      return without(positions, withDescendants(graph, op.id));
    case "moveStep":
      return without(positions, [op.id]);
    case "wrapInForeach":
    case "wrapInParallel":
      return without(positions, op.ids);
    case "unwrap":
      return without(positions, [op.id, ...childrenOf(graph, op.id)]);
    default:
      return positions;
  }
}
