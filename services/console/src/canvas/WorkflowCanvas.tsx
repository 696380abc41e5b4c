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
import { flowEdges, type FlowNode, type IssueMark } from "./elements";
import type { Point } from "./layout";
import type { NodeOverlay } from "./overlay";
import { isStepType, Palette, STEP_MIME } from "./Palette";
import { StepNode } from "./StepNode";
import { useFlowNodes } from "./useFlowNodes";
import { usePaneView } from "./usePaneView";
import { useSteadyHandler } from "./useSteadyHandler";

export interface WorkflowCanvasProps {
  graph: CanvasGraph; // from @wf/shared/canvas
  positions?: Record<string, { x: number; y: number }>; // manual positions by node id (= step name)
  selected?: string | null;
  onSelect?(id: string | null): void;
  /** Steps selected besides `selected`, for an operation on several (wrapping adjacent steps). */
  also?: readonly string[];
  /**
   * A step shift-, ctrl- or ⌘-clicked, or Shift+Enter (Shift+Space) on a focused one: added to the selection, or taken
   * out of it. Without it, those select the step alone.
   */
  onExtend?(id: string): void;
  pinned?: ReadonlySet<string>; // names of the top-level steps with a pinned output: each shows a pin mark
  overlay?: Record<string, NodeOverlay>; // run / debug state per node id: status colour, duration, attempts, tokens, cost, paused highlight, foreach items (expandable list on the node)
  editable?: boolean; // palette, drag to reorder/nest, Delete key, node drag to place
  onOperation?(op: CanvasOperation): void; // editable only: the page applies it to the text
  /**
   * The nodes a person just dragged to new places, relative to their parent box as `positions` are: merge them into
   * `positions`.
   */
  onMove?(positions: Record<string, { x: number; y: number }>): void; // a person dragged nodes to places
  onGutterClick?(id: string, kind: "before" | "after" | "on_error"): void; // when given, each node shows a breakpoint gutter with three marks
  onIssue?(issue: IssueMark): void; // when given, a problem's mark is a button that hands its problem here
  /**
   * A step kept in view as it changes (a run's running step), until a person moves the view; a button hands the view
   * back.
   */
  follow?: string | null;
  /**
   * Enter (or Space) on a focused step: open it, as a click selects it; `onSelect` when not given. The page may then
   * move the focus to the step's panel.
   */
  onActivate?(id: string): void;
  className?: string;
}

const nodeTypes = { step: StepNode, branch: BranchNode };
const edgeTypes = { data: DataEdge };
const MINIMAP_SIZE = { width: 128, height: 96 };
/** Past this many nodes only those in view are in the page: a live run redraws them as it goes. */
const DRAW_ALL_UP_TO = 100;

/** Keys that edit text inside the canvas's own controls belong to those controls. */
function typingIn(target: EventTarget): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))
  );
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
  also,
  onExtend,
  pinned,
  overlay,
  editable = false,
  onOperation,
  onMove,
  onGutterClick,
  onIssue,
  onActivate,
  follow = null,
  className,
}: WorkflowCanvasProps) {
  const flow = useReactFlow<FlowNode>();
  const { layout, nodes, onNodesChange, settle } = useFlowNodes(graph, positions, {
    selected,
    ...(also ? { also } : {}),
    overlay,
    pinned,
    editable,
    gutter: onGutterClick !== undefined,
    overlaid: overlay !== undefined,
  });
  const { pane, showAll, onMoveStart, following, followAgain } = usePaneView(layout, selected, follow);
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
    if (outcome.kind === "move")
      onOperation?.({ kind: "moveStep", id: node.id, to: outcome.target.list, index: outcome.target.index });
    else onMove?.({ [node.id]: rounded(dragged.position) });
  });

  // Keys pressed after a click (Delete, undo) must reach the canvas, not whatever had the focus before.
  const focusCanvas = () => {
    if (!pane.current?.contains(document.activeElement)) pane.current?.focus({ preventScroll: true });
  };

  const onNodeClick = useSteadyHandler<NodeMouseHandler<FlowNode>>((event, node) => {
    focusCanvas();
    const id = node.type === "branch" ? (node.parentId ?? null) : node.id;
    if (id !== null && onExtend && (event.shiftKey || event.ctrlKey || event.metaKey)) onExtend(id);
    else onSelect?.(id);
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
    // A step reached with Tab opens with Enter or Space, as a click opens it (xyflow only marks it selected).
    const focusedNode =
      event.target instanceof HTMLElement && event.target.classList.contains("react-flow__node") ? event.target : null;
    if (focusedNode && (event.key === "Enter" || event.key === " ")) {
      const node = nodes.find((n) => n.id === focusedNode.dataset.id);
      const id = node?.type === "branch" ? node.parentId : node?.id;
      if (id !== undefined) {
        event.preventDefault();
        event.stopPropagation();
        if (event.shiftKey && onExtend) onExtend(id);
        else if (onActivate) onActivate(id);
        else onSelect?.(id);
        return;
      }
    }
    if (event.key === "Escape" && selected !== null) onSelect?.(null);
    const deletable = editable && selected !== null && graph.nodes.some((node) => node.id === selected);
    if ((event.key === "Delete" || event.key === "Backspace") && deletable) {
      event.preventDefault();
      onOperation?.({ kind: "deleteStep", id: selected });
    }
  };

  const actions = useMemo<CanvasActions>(
    () => ({ selected, select: (id) => onSelect?.(id), gutterClick: onGutterClick, issueClick: onIssue }),
    [selected, onSelect, onGutterClick, onIssue],
  );

  return (
    <CanvasActionsContext.Provider value={actions}>
      <div
        ref={pane}
        className={`wf-canvas${className ? ` ${className}` : ""}`}
        tabIndex={-1}
        onKeyDown={onKeyDown}
        onDragOver={onDragOver}
        onDrop={onDrop}
      >
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
          onMoveStart={onMoveStart}
          onlyRenderVisibleElements={nodes.length > DRAW_ALL_UP_TO}
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
          {follow !== null && !following ? (
            <Panel position="top-right">
              <button type="button" className="small-button" onClick={followAgain}>
                Follow the running step
              </button>
            </Panel>
          ) : null}
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
