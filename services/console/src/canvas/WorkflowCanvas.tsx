import "@xyflow/react/dist/style.css";
import "./canvas.css";
import { useMemo, useRef, type DragEvent, type JSX, type KeyboardEvent } from "react";
import {
  Background,
  Controls,
  MiniMap,
  Panel,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type NodeMouseHandler,
  type OnNodeDrag,
} from "@xyflow/react";
import type { CanvasGraph, CanvasOperation } from "@wf/shared/canvas";
import { CanvasActionsContext, type CanvasActions } from "./actions";
import { BranchNode } from "./BranchNode";
import { DataEdge } from "./DataEdge";
import { dragOutcome, dropTarget } from "./drop";
import { flowEdges, type FlowNode } from "./elements";
import type { Point } from "./layout";
import { isStepType, Palette, STEP_MIME } from "./Palette";
import { StepNode } from "./StepNode";
import { useFlowNodes } from "./useFlowNodes";
import { usePaneView } from "./usePaneView";
import { useSteadyHandler } from "./useSteadyHandler";

export type BreakpointKind = "before" | "after" | "on_error";

/**
 * A run or a debug session on a node. `status` is a step's status (`COMPLETED`…), or `REUSED` for
 * a step a rerun took over from the run it reruns. `items` are the runs of a step in a foreach
 * (or a foreach's items): the node lists them, and clicking one calls `onSelect` with its `path`.
 */
export interface NodeOverlay {
  status?: string;
  durationMs?: number | null;
  attempts?: number;
  tokens?: number | null;
  costUsd?: number | null;
  paused?: boolean;
  breakpoints?: ("before" | "after" | "on_error")[];
  items?: { label: string; status: string; path: string }[];
}

export interface WorkflowCanvasProps {
  graph: CanvasGraph; // from @wf/shared/canvas
  positions?: Record<string, { x: number; y: number }>; // manual positions by node id (= step name)
  selected?: string | null;
  onSelect?(id: string | null): void;
  overlay?: Record<string, NodeOverlay>; // run / debug state per node id: status colour, duration, attempts, tokens, cost, paused highlight, foreach items (expandable list on the node)
  editable?: boolean; // palette, drag to reorder/nest, Delete key, node drag to place
  onOperation?(op: CanvasOperation): void; // editable only: the page applies it to the text
  /** The nodes a person just dragged to new places, relative to their parent box as `positions` are: merge them into `positions`. */
  onMove?(positions: Record<string, { x: number; y: number }>): void; // a person dragged nodes to places
  onGutterClick?(id: string, kind: "before" | "after" | "on_error"): void; // when given, each node shows a breakpoint gutter with three marks
  className?: string;
}

const nodeTypes = { step: StepNode, branch: BranchNode };
const edgeTypes = { data: DataEdge };
const MINIMAP_SIZE = { width: 128, height: 96 };

/** Keys that edit text inside the canvas's own controls belong to those controls. */
function typingIn(target: EventTarget): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

const rounded = (p: Point): Point => ({ x: Math.round(p.x), y: Math.round(p.y) });

/**
 * The workflow as a graph: steps top to bottom, containers as boxes around their steps, data
 * references as dashed edges. It never changes the text itself: editing gestures come out as
 * canvas operations for the page to apply, and placing nodes as positions for it to keep.
 */
export default function WorkflowCanvas(props: WorkflowCanvasProps): JSX.Element {
  return (
    <ReactFlowProvider>
      <CanvasFlow {...props} />
    </ReactFlowProvider>
  );
}

function CanvasFlow({
  graph,
  positions,
  selected = null,
  onSelect,
  overlay,
  editable = false,
  onOperation,
  onMove,
  onGutterClick,
  className,
}: WorkflowCanvasProps) {
  const flow = useReactFlow<FlowNode>();
  const { layout, nodes, onNodesChange, settle } = useFlowNodes(graph, positions, {
    selected,
    overlay,
    editable,
    gutter: onGutterClick !== undefined,
    overlaid: overlay !== undefined,
  });
  const { pane, showAll } = usePaneView(layout, selected);
  const edgeKey = JSON.stringify(graph.edges);
  const drawnEdges = useRef<Edge[]>([]);
  const edges = useMemo(() => (drawnEdges.current = flowEdges(graph, drawnEdges.current)), [edgeKey]);

  const onNodeDragStop = useSteadyHandler<OnNodeDrag<FlowNode>>((event, dragged) => {
    settle();
    const node = graph.nodes.find((n) => n.id === dragged.id);
    if (!editable || !node) return;
    const pointer = "changedTouches" in event ? event.changedTouches[0] : event;
    if (!pointer) return;
    const outcome = dragOutcome(layout, node, flow.screenToFlowPosition({ x: pointer.clientX, y: pointer.clientY }));
    if (outcome.kind === "move") onOperation?.({ kind: "moveStep", id: node.id, to: outcome.target.list, index: outcome.target.index });
    else onMove?.({ [node.id]: rounded(dragged.position) });
  });

  // Keys pressed after a click (Delete, undo) must reach the canvas, not whatever had the focus before.
  const focusCanvas = () => {
    if (!pane.current?.contains(document.activeElement)) pane.current?.focus({ preventScroll: true });
  };

  const onNodeClick = useSteadyHandler<NodeMouseHandler<FlowNode>>((_event, node) => {
    focusCanvas();
    onSelect?.(node.type === "branch" ? (node.parentId ?? null) : node.id);
  });

  const onPaneClick = useSteadyHandler(() => {
    focusCanvas();
    onSelect?.(null);
  });

  const onDragOver = (event: DragEvent) => {
    if (!editable || !event.dataTransfer.types.includes(STEP_MIME)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
  };

  const onDrop = (event: DragEvent) => {
    const type = event.dataTransfer.getData(STEP_MIME);
    if (!editable || !isStepType(type)) return;
    event.preventDefault();
    const target = dropTarget(layout, flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
    onOperation?.({ kind: "addStep", type, list: target.list, index: target.index });
  };

  const onKeyDown = (event: KeyboardEvent) => {
    if (typingIn(event.target)) return;
    if (event.key === "Escape" && selected !== null) onSelect?.(null);
    const deletable = editable && selected !== null && graph.nodes.some((node) => node.id === selected);
    if ((event.key === "Delete" || event.key === "Backspace") && deletable) {
      event.preventDefault();
      onOperation?.({ kind: "deleteStep", id: selected });
    }
  };

  const actions = useMemo<CanvasActions>(() => ({ selected, select: (id) => onSelect?.(id), gutterClick: onGutterClick }), [selected, onSelect, onGutterClick]);

  return (
    <CanvasActionsContext.Provider value={actions}>
      <div ref={pane} className={`wf-canvas${className ? ` ${className}` : ""}`} tabIndex={-1} onKeyDown={onKeyDown} onDragOver={onDragOver} onDrop={onDrop}>
        <ReactFlow<FlowNode>
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          edgeTypes={edgeTypes}
          onNodesChange={onNodesChange}
          onNodeClick={onNodeClick}
          onPaneClick={onPaneClick}
          onNodeDragStop={onNodeDragStop}
          onInit={showAll}
          nodesDraggable={editable}
          nodesConnectable={false}
          edgesFocusable={false}
          deleteKeyCode={null}
          selectionKeyCode={null}
          multiSelectionKeyCode={null}
          elevateNodesOnSelect={false}
          minZoom={0.1}
          maxZoom={1.5}
        >
          <Background gap={20} size={1} />
          <Controls showInteractive={false} />
          <MiniMap pannable zoomable ariaLabel="Overview of the workflow" style={MINIMAP_SIZE} />
          {editable ? (
            <Panel position="top-left">
              <Palette hasAgents={graph.agents.length > 0} onAdd={(type) => onOperation?.({ kind: "addStep", type })} />
            </Panel>
          ) : null}
        </ReactFlow>
      </div>
    </CanvasActionsContext.Provider>
  );
}
