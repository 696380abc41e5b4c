import { MarkerType, type Edge, type Node } from "@xyflow/react";
import type { Badge, CanvasGraph, CanvasIssue } from "@wf/shared/canvas";
import type { CanvasLayout } from "./layout";
import type { NodeOverlay } from "./overlay";

/** A problem as a node shows it, and where in the text it is, to go there. */
export type IssueMark = Pick<CanvasIssue, "line" | "column" | "message">;

/**
 * Only what a node shows, so that an edit elsewhere in the text (which moves every offset after it) leaves it equal.
 */
export type StepNodeData = {
  name: string;
  type: string | undefined;
  badges: Pick<Badge, "kind" | "label">[];
  /** The problems found in the step. */
  issues: IssueMark[];
  /** The problems in a new step being written after this one, which is not drawn (see CanvasIssue.after). */
  after: IssueMark[];
  overlay: NodeOverlay | undefined;
  container: boolean;
  gutter: boolean;
  /** A top-level step with a pinned output (step tests take it instead of running the step). */
  pinned: boolean;
};

export type BranchNodeData = { branch: string };

export type StepFlowNode = Node<StepNodeData, "step">;
export type BranchFlowNode = Node<BranchNodeData, "branch">;
export type FlowNode = StepFlowNode | BranchFlowNode;

export interface NodeOptions {
  selected: string | null;
  /** Steps selected with it (shift/ctrl-click, Shift+Enter), for an operation on several. */
  also?: readonly string[];
  overlay: Readonly<Record<string, NodeOverlay>> | undefined;
  pinned?: ReadonlySet<string>;
  editable: boolean;
  gutter: boolean;
}

/** The problems in each step (`in`) and after it (`after`), by node id. */
function issuesByNode(graph: CanvasGraph): { in: Map<string, IssueMark[]>; after: Map<string, IssueMark[]> } {
  const out = { in: new Map<string, IssueMark[]>(), after: new Map<string, IssueMark[]>() };
  const add = (marks: Map<string, IssueMark[]>, id: string | undefined, { line, column, message }: CanvasIssue) => {
    if (id !== undefined) marks.set(id, [...(marks.get(id) ?? []), { line, column, message }]);
  };
  for (const issue of graph.issues) {
    // One step of the last valid drawing may hold both ends of a duplicate name (see shownGraph): marked once.
    for (const id of new Set([issue.node, issue.other])) add(out.in, id, issue);
    add(out.after, issue.after, issue);
  }
  return out;
}

function selectedOfSeveral(id: string, options: NodeOptions): boolean {
  return (options.also?.length ?? 0) > 0 && (id === options.selected || (options.also?.includes(id) ?? false));
}

/**
 * The layout's boxes as xyflow nodes, parents first: steps (a container's box is the step itself) and a parallel's
 * branches.
 */
export function flowNodes(graph: CanvasGraph, layout: CanvasLayout, options: NodeOptions): FlowNode[] {
  const steps = new Map(graph.nodes.map((node) => [node.id, node]));
  const branches = new Map(graph.groups.map((group) => [group.id, group.branch]));
  const issues = issuesByNode(graph);
  return layout.boxes.flatMap((box): FlowNode[] => {
    const size = { width: box.width, height: box.height };
    // The box is drawn at its size, so it is given as measured too: xyflow then finds nothing to
    // report once it has drawn the nodes, and keeps a node's handles when its content changes.
    const common = {
      id: box.id,
      position: { x: box.x, y: box.y },
      ...size,
      measured: size,
      ...(box.parent ? { parentId: box.parent } : {}),
    };
    if (box.kind === "branch") {
      return [
        {
          ...common,
          type: "branch",
          data: { branch: branches.get(box.id) ?? "" },
          draggable: false,
          selectable: false,
          focusable: false,
        },
      ];
    }
    const node = steps.get(box.id);
    if (!node) return [];
    return [
      {
        ...common,
        type: "step",
        data: {
          name: node.name ?? node.id,
          type: node.type,
          badges: node.badges.map(({ kind, label }) => ({ kind, label })),
          issues: issues.in.get(box.id) ?? [],
          after: issues.after.get(box.id) ?? [],
          overlay: options.overlay?.[box.id],
          container: box.kind === "container",
          gutter: options.gutter,
          pinned: node.group === undefined && node.name !== undefined && (options.pinned?.has(node.name) ?? false),
        },
        selected: box.id === options.selected || (options.also?.includes(box.id) ?? false),
        draggable: options.editable,
        ...(debugClass(options.overlay?.[box.id]) ?? {}),
        // xyflow's node is a group, which takes no aria-selected: its name says it, while several are selected.
        ariaLabel: `Step ${node.name ?? node.id}${debugWords(options.overlay?.[box.id])}${selectedOfSeveral(box.id, options) ? ", selected" : ""}`,
      },
    ];
  });
}

/** A debug run's pause, or a branch waiting its turn behind it, lights the node: the pause the brighter. */
function debugClass(overlay: NodeOverlay | undefined): { className: string } | null {
  if (overlay?.paused) return { className: "is-paused" };
  return overlay?.waiting ? { className: "is-waiting" } : null;
}

/** What the node's light means, in its name: a screen reader hears it as the badges on the node say it. */
function debugWords(overlay: NodeOverlay | undefined): string {
  return `${overlay?.paused ? ", paused here" : ""}${overlay?.waiting ? ", waiting its turn" : ""}`;
}

function sameNode(a: FlowNode, b: FlowNode): boolean {
  return (
    a.type === b.type &&
    a.position.x === b.position.x &&
    a.position.y === b.position.y &&
    a.width === b.width &&
    a.height === b.height &&
    a.parentId === b.parentId &&
    a.selected === b.selected &&
    a.draggable === b.draggable &&
    a.className === b.className &&
    a.ariaLabel === b.ariaLabel &&
    JSON.stringify(a.data) === JSON.stringify(b.data)
  );
}

/**
 * `next` with each node that shows the same as before replaced by the earlier object, which xyflow
 * then leaves alone; `previous` itself when they all do (an edit that changes nothing drawn), so
 * that xyflow has nothing to look through.
 */
export function keepUnchanged(previous: FlowNode[], next: FlowNode[]): FlowNode[] {
  const before = new Map(previous.map((node) => [node.id, node]));
  const kept = next.map((node) => {
    const old = before.get(node.id);
    return old && sameNode(old, node) ? old : node;
  });
  return kept.length === previous.length && kept.every((node, i) => node === previous[i]) ? previous : kept;
}

const ARROW = { type: MarkerType.ArrowClosed, width: 14, height: 14, color: "var(--muted)" };
const DATA_ARROW = { ...ARROW, color: "var(--info)" };

/**
 * Sequence edges from bottom to top, and data edges (a step reading another) as dashed arcs on
 * the right (DataEdge). The nesting of the boxes already says what a container runs, so its enter
 * and exit edges are not drawn. An edge among `previous` keeps its object, which xyflow then
 * leaves alone: its id says all it draws (its kind and its ends).
 */
export function flowEdges(graph: CanvasGraph, previous: readonly Edge[] = []): Edge[] {
  const before = new Map(previous.map((edge) => [edge.id, edge]));
  return graph.edges.flatMap((edge): Edge[] => {
    const old = before.get(edge.id);
    if (old) return [old];
    const common = { id: edge.id, source: edge.from, target: edge.to, selectable: false, focusable: false };
    if (edge.kind === "sequence")
      return [{ ...common, sourceHandle: "out", targetHandle: "in", className: "wf-edge-sequence", markerEnd: ARROW }];
    if (edge.kind === "data")
      return [
        {
          ...common,
          type: "data",
          sourceHandle: "data-out",
          targetHandle: "data-in",
          className: "wf-edge-data",
          markerEnd: DATA_ARROW,
        },
      ];
    return [];
  });
}
