import type { CanvasGraph, CanvasGroup, StepList } from "@wf/shared/canvas";

export interface Point {
  x: number;
  y: number;
}

/**
 * What xyflow draws: a step (`container` when it holds steps: a foreach, or a parallel whose
 * boxes are its branches) or a parallel's branch. `x`/`y` are relative to the parent box, as
 * xyflow places a sub-flow's nodes; `absX`/`absY` are on the canvas.
 */
export interface Box {
  id: string;
  kind: "step" | "container" | "branch";
  parent: string | undefined;
  x: number;
  y: number;
  absX: number;
  absY: number;
  width: number;
  height: number;
}

/**
 * Where a list's steps are drawn on the canvas, for dropping a step into it. `mids` are its steps' vertical centres, in
 * order.
 */
export interface ListArea {
  list: StepList;
  /** The step that holds the list (undefined for the top level): a step cannot be dropped into itself. */
  owner: string | undefined;
  depth: number;
  x: number;
  y: number;
  width: number;
  height: number;
  items: { id: string; mid: number }[];
}

export interface CanvasLayout {
  /** Parents before their children, as xyflow needs them. */
  boxes: Box[];
  /** The top-level list first. */
  lists: ListArea[];
  width: number;
  height: number;
}

export interface LayoutOptions {
  /** Positions a person chose, by node id, relative to the parent box like `Box.x`/`Box.y`. */
  positions?: Readonly<Record<string, Point>>;
  /** Room on each step for a run's facts (status, duration, usage). */
  overlay?: boolean;
  /** Room on each step for the breakpoint gutter. */
  gutter?: boolean;
}

export const STEP_WIDTH = 232;
export const STEP_HEIGHT = 70;
const OVERLAY_HEIGHT = 24;
/** The breakpoint gutter: marks of 26 px, touch targets of at least 24 px at the first view's zoom of 1. */
const GUTTER_WIDTH = 30;
/** Inside a container: the padding around its list, under a header as tall as a step. */
const PAD = 16;
const BRANCH_HEADER = 30;
const BRANCH_PAD = 12;
const RANK_GAP = 40;
const SIDE_GAP = 24;

/** A laid-out subtree in the coordinates of its own box. */
interface Tree {
  id: string;
  kind: Box["kind"];
  width: number;
  height: number;
  children: Placed[];
  lists: LocalList[];
}

interface Placed {
  tree: Tree;
  x: number;
  y: number;
}

interface Column {
  items: Placed[];
  width: number;
  height: number;
}

interface LocalList {
  list: StepList;
  owner: string | undefined;
  x: number;
  y: number;
  width: number;
  height: number;
  items: Placed[];
}

class Layouter {
  readonly #groups = new Map<string, CanvasGroup>();
  readonly #positions: Readonly<Record<string, Point>>;
  readonly #stepWidth: number;
  readonly #stepHeight: number;

  constructor(graph: CanvasGraph, options: LayoutOptions) {
    for (const group of graph.groups) this.#groups.set(group.id, group);
    this.#positions = options.positions ?? {};
    this.#stepWidth = STEP_WIDTH + (options.gutter ? GUTTER_WIDTH : 0);
    this.#stepHeight = STEP_HEIGHT + (options.overlay ? OVERLAY_HEIGHT : 0);
  }

  /**
   * A list top to bottom in its order, each step centred on the widest: the layered drawing of a
   * chain, computed in one pass rather than by a general graph layout, since every keystroke that
   * renames a step lays the whole workflow out again.
   */
  column(ids: readonly string[]): Column {
    const trees = ids.map((id) => this.step(id));
    const width = Math.max(0, ...trees.map((tree) => tree.width));
    let y = 0;
    const items = trees.map((tree) => {
      const placed = { tree, x: (width - tree.width) / 2, y };
      y += tree.height + RANK_GAP;
      return placed;
    });
    return { items, width, height: Math.max(0, y - RANK_GAP) };
  }

  /**
   * A list placed in its parent box at `origin`; a step a person placed keeps its place, held
   * inside the box by `min` so it cannot slip under the header.
   */
  place(column: Column, origin: Point, min: Point | undefined): Placed[] {
    return column.items.map((p) => {
      const chosen = this.#positions[p.tree.id];
      if (!chosen) return { ...p, x: origin.x + p.x, y: origin.y + p.y };
      return min ? { ...p, x: Math.max(min.x, chosen.x), y: Math.max(min.y, chosen.y) } : { ...p, ...chosen };
    });
  }

  step(id: string): Tree {
    const group = this.#groups.get(id);
    if (group?.kind === "foreach") return this.#foreach(id, group);
    if (group?.kind === "parallel") return this.#parallel(id, group);
    return { id, kind: "step", width: this.#stepWidth, height: this.#stepHeight, children: [], lists: [] };
  }

  #foreach(id: string, group: CanvasGroup): Tree {
    const inner = this.column(group.children);
    const width = Math.max(this.#stepWidth, inner.width + 2 * PAD);
    const top = this.#stepHeight;
    const items = this.place(inner, { x: (width - inner.width) / 2, y: top + PAD / 2 }, { x: PAD / 2, y: top });
    const box = grown(width, top + PAD / 2 + inner.height + PAD, items);
    return {
      id,
      kind: "container",
      ...box,
      children: items,
      lists: [{ list: { parent: id }, owner: id, x: 0, y: top, width: box.width, height: box.height - top, items }],
    };
  }

  #branch(group: CanvasGroup): Tree {
    const inner = this.column(group.children);
    const width = Math.max(this.#stepWidth + 2 * BRANCH_PAD, inner.width + 2 * BRANCH_PAD);
    const items = this.place(
      inner,
      { x: (width - inner.width) / 2, y: BRANCH_HEADER },
      { x: BRANCH_PAD / 2, y: BRANCH_HEADER },
    );
    const box = grown(width, BRANCH_HEADER + inner.height + BRANCH_PAD, items);
    return {
      id: group.id,
      kind: "branch",
      ...box,
      children: items,
      lists: [
        {
          list: { parent: group.owner, branch: group.branch ?? "" },
          owner: group.owner,
          x: 0,
          y: 0,
          width: box.width,
          height: box.height,
          items,
        },
      ],
    };
  }

  /** Branches side by side in their order, equally tall so they read as one row. */
  #parallel(id: string, group: CanvasGroup): Tree {
    const branches = group.branches.flatMap((branchId) => {
      const branch = this.#groups.get(branchId);
      return branch ? [this.#branch(branch)] : [];
    });
    const tallest = Math.max(0, ...branches.map((b) => b.height));
    for (const branch of branches) branch.height = tallest;
    let x = 0;
    const row = branches.map((tree) => {
      const placed = { tree, x, y: 0 };
      x += tree.width + SIDE_GAP;
      return placed;
    });
    const rowWidth = Math.max(0, x - SIDE_GAP);
    const width = Math.max(this.#stepWidth, rowWidth + 2 * PAD);
    const top = this.#stepHeight;
    const children = row.map((p) => ({ ...p, x: p.x + (width - rowWidth) / 2, y: p.y + top }));
    return { id, kind: "container", width, height: top + tallest + PAD, children, lists: [] };
  }
}

/** A box around a list's steps, grown to hold those a person placed further out. */
function grown(width: number, height: number, items: readonly Placed[]): { width: number; height: number } {
  return {
    width: Math.max(width, ...items.map((p) => p.x + p.tree.width + PAD)),
    height: Math.max(height, ...items.map((p) => p.y + p.tree.height + PAD)),
  };
}

function flatten(placed: Placed, parent: Box | undefined, depth: number, out: CanvasLayout): void {
  const { tree } = placed;
  const box: Box = {
    id: tree.id,
    kind: tree.kind,
    parent: parent?.id,
    x: placed.x,
    y: placed.y,
    absX: (parent?.absX ?? 0) + placed.x,
    absY: (parent?.absY ?? 0) + placed.y,
    width: tree.width,
    height: tree.height,
  };
  out.boxes.push(box);
  for (const list of tree.lists) {
    out.lists.push({
      list: list.list,
      owner: list.owner,
      depth: depth + 1,
      x: box.absX + list.x,
      y: box.absY + list.y,
      width: list.width,
      height: list.height,
      items: list.items.map((p) => ({ id: p.tree.id, mid: box.absY + p.y + p.tree.height / 2 })),
    });
  }
  for (const child of tree.children) flatten(child, box, depth + 1, out);
}

/**
 * Where each node of a workflow's canvas goes: every list of steps a column top to bottom,
 * containers sized around their lists, a parallel's branches side by side, and the positions a
 * person chose in place of the computed ones. Pure, so it can be tested and timed.
 */
export function layoutGraph(graph: CanvasGraph, options: LayoutOptions = {}): CanvasLayout {
  const layouter = new Layouter(graph, options);
  const top = graph.nodes.filter((node) => node.group === undefined).map((node) => node.id);
  const items = layouter.place(layouter.column(top), { x: 0, y: 0 }, undefined);
  const out: CanvasLayout = { boxes: [], lists: [], width: 0, height: 0 };
  const root: ListArea = { list: {}, owner: undefined, depth: 0, x: 0, y: 0, width: 0, height: 0, items: [] };
  out.lists.push(root);
  for (const placed of items) flatten(placed, undefined, 0, out);
  root.items = items.map((p) => ({ id: p.tree.id, mid: p.y + p.tree.height / 2 }));
  const right = Math.max(0, ...out.boxes.map((b) => b.absX + b.width));
  const bottom = Math.max(0, ...out.boxes.map((b) => b.absY + b.height));
  root.width = out.width = right;
  root.height = out.height = bottom;
  return out;
}

/**
 * What `layoutGraph` reads of a graph: equal keys lay out alike, so an edit inside a step (typing a prompt) need not
 * lay out again.
 */
export function structureKey(graph: CanvasGraph): string {
  const top = graph.nodes.filter((node) => node.group === undefined).map((node) => node.id);
  return JSON.stringify([top, graph.groups.map((group) => [group.id, group.kind, group.children, group.branches])]);
}
