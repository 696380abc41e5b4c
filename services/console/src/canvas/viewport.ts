import type { Box } from "./layout";

export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export interface Size {
  width: number;
  height: number;
}

const MARGIN = 24;
/** Below this a step's name is no longer readable: a workflow too tall for it opens at its top instead. */
const READABLE = 0.6;

/**
 * The first view of a drawing `width` × `height` in a pane of `pane` size, the left `inset` of
 * which is covered (by the palette): the whole of it when it fits at a readable zoom (never
 * enlarged), otherwise its top at that zoom, since a workflow starts at its first step; centred
 * across the room there is.
 */
export function initialViewport(drawing: Size, pane: Size, inset = 0): Viewport {
  const room = { width: Math.max(1, pane.width - inset - 2 * MARGIN), height: Math.max(1, pane.height - 2 * MARGIN) };
  const fit = Math.min(1, room.width / Math.max(1, drawing.width), room.height / Math.max(1, drawing.height));
  const zoom = Math.max(fit, Math.min(READABLE, room.width / Math.max(1, drawing.width)));
  const x = inset + (pane.width - inset - drawing.width * zoom) / 2;
  const y = drawing.height * zoom <= room.height ? (pane.height - drawing.height * zoom) / 2 : MARGIN;
  return { x, y, zoom };
}

/** Whether a box (canvas coordinates) is wholly in view. */
export function inView(box: Pick<Box, "absX" | "absY" | "width" | "height">, view: Viewport, pane: Size): boolean {
  const left = box.absX * view.zoom + view.x;
  const top = box.absY * view.zoom + view.y;
  return (
    left >= 0 && top >= 0 && left + box.width * view.zoom <= pane.width && top + box.height * view.zoom <= pane.height
  );
}
