import { useEffect, useRef } from "react";
import { useReactFlow } from "@xyflow/react";
import type { FlowNode } from "./elements";
import type { CanvasLayout } from "./layout";
import { useSteadyHandler } from "./useSteadyHandler";
import { initialViewport, inView } from "./viewport";

/** The palette's distance from the pane's left edge (xyflow's panel margin), and as much again beside it. */
const PANEL_MARGIN = 15;
/** Room on the right of the steps for the arcs of data edges (DataEdge), kept in the first view. */
const ARC_ROOM = 80;

/**
 * Where the canvas looks: the first view (`showAll`, when xyflow is ready), a step selected
 * elsewhere (the editor's cursor, a list of steps) brought into view, and the middle of the
 * drawing kept in the middle when the pane is made narrower or wider (the side panel, the split).
 */
export function usePaneView(layout: CanvasLayout, selected: string | null) {
  const flow = useReactFlow<FlowNode>();
  const pane = useRef<HTMLDivElement>(null);
  const paneSize = () => ({ width: pane.current?.clientWidth ?? 0, height: pane.current?.clientHeight ?? 0 });
  /** What the palette covers on the left, which the first view leaves free. */
  const paletteRoom = () => {
    const palette = pane.current?.querySelector<HTMLElement>(".wf-palette");
    return palette ? palette.offsetWidth + 2 * PANEL_MARGIN : 0;
  };

  useEffect(() => {
    const box = layout.boxes.find((b) => b.id === selected);
    if (!box || inView(box, flow.getViewport(), paneSize())) return;
    void flow.setCenter(box.absX + box.width / 2, box.absY + Math.min(box.height, 120) / 2, { zoom: flow.getZoom(), duration: 200 });
  }, [selected]);

  useEffect(() => {
    const element = pane.current;
    if (!element) return;
    let width = element.clientWidth;
    const observer = new ResizeObserver(() => {
      const view = flow.getViewport();
      void flow.setViewport({ ...view, x: view.x + (element.clientWidth - width) / 2 });
      width = element.clientWidth;
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [flow]);

  const showAll = useSteadyHandler(
    () => void flow.setViewport(initialViewport({ width: layout.width + ARC_ROOM, height: layout.height }, paneSize(), paletteRoom())),
  );
  return { pane, showAll };
}
