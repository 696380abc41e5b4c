import type { CanvasNode, StepList } from "@wf/shared/canvas";
import type { CanvasLayout, ListArea, Point } from "./layout";

/** A place among the workflow's steps: a list, and the position a step would take in it. */
export interface DropTarget {
  list: StepList;
  index: number;
}

export function sameList(a: StepList, b: StepList): boolean {
  return a.parent === b.parent && a.branch === b.branch;
}

/** Whether box `id` is `ancestor` or drawn inside it. */
function within(parents: ReadonlyMap<string, string | undefined>, id: string | undefined, ancestor: string): boolean {
  for (let at = id; at !== undefined; at = parents.get(at)) if (at === ancestor) return true;
  return false;
}

function holds(area: ListArea, point: Point): boolean {
  return point.x >= area.x && point.x <= area.x + area.width && point.y >= area.y && point.y <= area.y + area.height;
}

/**
 * The list under `point` (canvas coordinates) and the position there: the innermost list whose
 * area holds the point, the top level anywhere else; the position counts the list's steps whose
 * middle is above the point. A step being moved (`moving`) neither counts nor offers its own lists.
 */
export function dropTarget(layout: CanvasLayout, point: Point, moving?: string): DropTarget {
  const parents = new Map(layout.boxes.map((box) => [box.id, box.parent]));
  let best: ListArea | undefined;
  for (const area of layout.lists) {
    if (area.depth > 0 && !holds(area, point)) continue;
    if (moving !== undefined && area.owner !== undefined && within(parents, area.owner, moving)) continue;
    if (!best || area.depth > best.depth) best = area;
  }
  const items = (best?.items ?? []).filter((item) => item.id !== moving);
  return { list: best?.list ?? {}, index: items.filter((item) => item.mid < point.y).length };
}

/**
 * What letting go of a dragged step means: another list or another position in its own is a
 * move in the text, since the drawing's top-to-bottom order is the run order; anywhere else it
 * only puts the step in a new place on the canvas.
 */
export function dragOutcome(
  layout: CanvasLayout,
  node: CanvasNode,
  point: Point,
): { kind: "move"; target: DropTarget } | { kind: "place" } {
  const target = dropTarget(layout, point, node.id);
  return sameList(target.list, node.list) && target.index === node.index ? { kind: "place" } : { kind: "move", target };
}
