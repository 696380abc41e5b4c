import { useEffect, useRef, useState } from "react";
import { useReactFlow } from "@xyflow/react";
import type { FlowNode } from "./elements";
import type { CanvasLayout } from "./layout";
import { useSteadyHandler } from "./useSteadyHandler";
import { initialViewport, inView, type Viewport } from "./viewport";

/** The palette's distance from the pane's left edge (xyflow's panel margin), and as much again beside it. */
const PANEL_MARGIN = 15;
/** Where a followed step is put when it leaves the view: its top this far down the pane. */
const FOLLOW_TOP = 0.15;
/** How long after a reveal's pan a resize is still taken for the panel that the selection opened. */
const SETTLE_MS = 300;
/** Room on the right of the steps for the arcs of data edges (DataEdge), kept in the first view. */
const ARC_ROOM = 80;

/**
 * Where the canvas looks: the first view (`showAll`, when xyflow is ready), a step selected
 * elsewhere (the editor's cursor, a list of steps) brought into view, the step `follow` names (a
 * run's running step) kept in view until a person moves the view (`followAgain` hands it back),
 * and the middle of the drawing kept in the middle when the pane is made narrower or wider (the
 * side panel, the split).
 */
export function usePaneView(layout: CanvasLayout, selected: string | null, follow: string | null = null) {
  const flow = useReactFlow<FlowNode>();
  const pane = useRef<HTMLDivElement>(null);
  const paneSize = () => ({ width: pane.current?.clientWidth ?? 0, height: pane.current?.clientHeight ?? 0 });
  /** What the palette covers on the left, which the first view leaves free. */
  const paletteRoom = () => {
    const palette = pane.current?.querySelector<HTMLElement>(".wf-palette");
    return palette ? palette.offsetWidth + 2 * PANEL_MARGIN : 0;
  };

  // The selected step, brought into view once per selection: a step just added (from the palette)
  // is selected in the same change that draws it, and may only be laid out in a later render.
  const revealed = useRef<string | null>(null);
  /**
   * The last reveal: the view it ends at and when it ends. Mid-pan, xyflow's zoom is on the way (a pan dips it), so
   * a reveal aimed again then must aim at this zoom, not the one of the moment; and whether a step is in view is
   * judged by where the pan ends, or a step selected mid-pan would be left behind it.
   */
  const pan = useRef<{ view: Viewport; ends: number } | null>(null);
  const reveal = (box: { absX: number; absY: number; width: number; height: number }, duration: number) => {
    const zoom =
      pan.current && performance.now() < pan.current.ends + SETTLE_MS ? pan.current.view.zoom : flow.getZoom();
    const center = { x: box.absX + box.width / 2, y: box.absY + Math.min(box.height, 120) / 2 };
    const size = paneSize();
    pan.current = {
      view: { x: size.width / 2 - center.x * zoom, y: size.height / 2 - center.y * zoom, zoom },
      ends: performance.now() + duration,
    };
    void flow.setCenter(center.x, center.y, { zoom, duration });
  };
  /** Where the view is, or where it is going while a reveal pans it. */
  const settledView = () =>
    pan.current && performance.now() < pan.current.ends ? pan.current.view : flow.getViewport();
  const selectedBox = () => layout.boxes.find((b) => b.id === selected);
  useEffect(() => {
    if (selected === null || revealed.current === selected) {
      revealed.current = selected;
      return;
    }
    const box = selectedBox();
    if (!box) return;
    revealed.current = selected;
    if (!inView(box, settledView(), paneSize())) reveal(box, 200);
  }, [selected, layout]);
  const current = useRef(selectedBox);
  current.current = selectedBox;

  // A run's step is followed only while the view is the canvas's: a person's pan or zoom ends it.
  const [following, setFollowing] = useState(true);
  const onMoveStart = useSteadyHandler((event: MouseEvent | TouchEvent | null) => {
    if (event === null) return;
    // A person's pan or zoom stops a reveal under way: a resize then keeps their view.
    pan.current = null;
    if (follow !== null) setFollowing(false);
  });
  useEffect(() => {
    const box = follow === null || !following ? undefined : layout.boxes.find((b) => b.id === follow);
    const size = paneSize();
    if (!box || inView(box, flow.getViewport(), size)) return;
    // Put without a pan (a pan redraws the canvas every frame), near the top, so that the steps
    // after it are in view too and the view moves seldom.
    const zoom = flow.getZoom();
    void flow.setCenter(box.absX + box.width / 2, box.absY + (size.height * (0.5 - FOLLOW_TOP)) / zoom, {
      zoom,
      duration: 0,
    });
  }, [follow, following, layout]);
  const followAgain = useSteadyHandler(() => setFollowing(true));

  useEffect(() => {
    const element = pane.current;
    if (!element) return;
    let width = element.clientWidth;
    const observer = new ResizeObserver(() => {
      const view = flow.getViewport();
      const moved = { ...view, x: view.x + (element.clientWidth - width) / 2 };
      const before = { width, height: element.clientHeight };
      width = element.clientWidth;
      // A side panel opening with a selection narrows the pane. A step being brought into view (or just brought, on a
      // machine slow to draw the panel) is aimed at again, for the pane it now has: setting the viewport would stop
      // the pan wherever it was, its zoom mid-dip. A selected step in view stays in view.
      const box = current.current();
      const left = pan.current ? pan.current.ends - performance.now() : -Infinity;
      if (box && left > -SETTLE_MS) reveal(box, Math.max(0, left));
      else if (box && inView(box, view, before) && !inView(box, moved, paneSize())) reveal(box, 0);
      else void flow.setViewport(moved);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [flow]);

  const showAll = useSteadyHandler(
    () =>
      void flow.setViewport(
        initialViewport({ width: layout.width + ARC_ROOM, height: layout.height }, paneSize(), paletteRoom()),
      ),
  );
  return { pane, showAll, onMoveStart, following: follow !== null && following, followAgain };
}
