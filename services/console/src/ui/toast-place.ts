/** The corners a notice may take, the usual one first (styles.css draws each by `data-corner`). */
const CORNERS = ["bottom-right", "bottom-left", "top-right", "top-left"] as const;

/** How far the focus ring reaches outside its control: a 2 px outline 1 px off it (styles.css). */
const RING = 3;

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

const overlap = (a: Box, b: Box) =>
  a.left < b.right + RING && b.left - RING < a.right && a.top < b.bottom + RING && b.top - RING < a.bottom;

/**
 * Puts the notices in the first corner where they draw over none of the focused control and its ring: a control under
 * them reached by Tab is seen. With nothing focused, or a focused box no corner clears (the page's <main>, focused
 * after a navigation), they take the usual corner.
 */
export function placeClearOfFocus(notices: HTMLElement, focused: Element | null): void {
  delete notices.dataset.corner;
  if (focused === null || focused === document.body || notices.contains(focused)) return;
  const control = focused.getBoundingClientRect();
  for (const corner of CORNERS) {
    notices.dataset.corner = corner;
    if (!overlap(notices.getBoundingClientRect(), control)) return;
  }
  delete notices.dataset.corner;
}
