import { lazy, Suspense, useEffect, useRef, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import type { CanvasGraph, CanvasIssue, CanvasOperation } from "@wf/shared/canvas";
import type { WorkflowIssue } from "../../api/types";
import { Loading } from "../../ui/states";
import { CanvasBanner } from "./CanvasBanner";
import type { Positions } from "./layout-positions";

// Only the editor and the execution pages draw workflows: xyflow loads with the first of them.
const WorkflowCanvas = lazy(() => import("../../canvas/WorkflowCanvas"));

interface Props {
  graph: CanvasGraph;
  /** The text's problems, as the list under the editor has them. */
  problems: readonly WorkflowIssue[];
  /** Whether the canvas draws the last valid version of a text that is not valid, rather than the text as it is. */
  stale: boolean;
  positions: Positions;
  /** Names of the top-level steps with a pinned output. */
  pinned: ReadonlySet<string>;
  selected: string | null;
  /** Steps selected besides `selected` (see WorkflowCanvas). */
  also: readonly string[];
  editable: boolean;
  onSelect(id: string | null): void;
  onExtend(id: string): void;
  onOperation(op: CanvasOperation): void;
  onMove(moved: Positions): void;
  onUndo(): void;
  onRedo(): void;
  /** A problem picked on the canvas: the editor's cursor goes to it. */
  onIssue(issue: Pick<CanvasIssue, "line" | "column">): void;
  panel: ReactNode;
}

/** The canvas beside the editor, with the selected step's panel; undo and redo pressed on it are the editor's. */
export function CanvasPane({
  graph,
  problems,
  stale,
  positions,
  pinned,
  selected,
  also,
  editable,
  onSelect,
  onExtend,
  onOperation,
  onMove,
  onUndo,
  onRedo,
  onIssue,
  panel,
}: Props) {
  const onKeyDown = (event: KeyboardEvent) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
    const key = event.key.toLowerCase();
    if (key === "z" && !event.shiftKey) onUndo();
    else if ((key === "z" && event.shiftKey) || key === "y") onRedo();
    else return;
    event.preventDefault();
  };
  const main = useRef<HTMLDivElement>(null);
  useFocusKept(main, graph, selected);
  /**
   * Enter on a step: selected, and the focus in its panel (drawn in the next frame), so that Tab goes on to its fields.
   */
  const activate = (id: string) => {
    onSelect(id);
    requestAnimationFrame(() => main.current?.querySelector<HTMLElement>(".step-panel")?.focus());
  };
  return (
    <section className="canvas-pane" aria-label="Canvas">
      <CanvasBanner problems={problems} stale={stale} onIssue={onIssue} />
      <div className="canvas-main" ref={main}>
        <div className="canvas-frame" onKeyDown={onKeyDown}>
          <Suspense fallback={<Loading what="Loading the canvas" />}>
            <WorkflowCanvas
              graph={graph}
              positions={positions}
              pinned={pinned}
              selected={selected}
              onSelect={onSelect}
              also={also}
              onExtend={onExtend}
              onActivate={activate}
              editable={editable}
              onOperation={onOperation}
              onMove={onMove}
              onIssue={onIssue}
            />
          </Suspense>
        </div>
        {panel}
      </div>
    </section>
  );
}

/**
 * A change that removes the focused element (a step deleted, by key or by its panel's button; a rename undone) leaves
 * the focus on the page's body, where neither undo nor redo reaches: it goes back to the canvas. Focus the user moved
 * elsewhere, or to nothing by a click on the page, stays where it went: the element it left is still there.
 */
function useFocusKept(main: RefObject<HTMLDivElement | null>, graph: CanvasGraph, selected: string | null) {
  const left = useRef<Element | null>(null);
  useEffect(() => {
    const onIn = (e: FocusEvent) => {
      left.current = e.target instanceof Element && main.current?.contains(e.target) ? e.target : null;
    };
    document.addEventListener("focusin", onIn);
    return () => document.removeEventListener("focusin", onIn);
  }, [main]);
  useEffect(() => {
    // Two frames on: xyflow removes a node in a render of its own, after the one that changed the graph.
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => {
        const lost = document.activeElement === null || document.activeElement === document.body;
        if (lost && left.current !== null && !left.current.isConnected)
          main.current?.querySelector<HTMLElement>(".wf-canvas")?.focus({ preventScroll: true });
      });
    });
    return () => cancelAnimationFrame(frame);
  }, [main, graph, selected]);
}
