import type { ExecutionView, WaitingPoint } from "../../api/types";
import { breakpointLabel } from "./breakpoints";
import { pausePoint } from "./pause-words";

/**
 * The points other branches wait at behind the pause, then their failures held: each pauses, or is handled, in its turn
 * once the pause is answered. Empty when not paused.
 */
export function waitingTurns(view: Pick<ExecutionView, "pause" | "waiting" | "held">): WaitingPoint[] {
  const pause = view.pause;
  if (pause === null) return [];
  // A view a debug_paused event patched lists the point that paused among those waiting until it is fetched again.
  return [...view.waiting, ...view.held].filter(
    (w) => !(w.stepPath === pause.stepPath && w.phase === pause.phase && w.occurrence === pause.occurrence),
  );
}

/** Where in its run a point waits: `item 1, branch b2`; empty at the top level. */
export function waitingPlace(w: WaitingPoint): string {
  return [w.items.length > 0 ? `item ${w.items.join(".")}` : null, w.branch === null ? null : `branch ${w.branch}`]
    .filter((part) => part !== null)
    .join(", ");
}

/** What comes of a point in its turn, as a sentence: `Waits after x2 completed: After step breakpoint bp2.` */
export function waitingSentence(w: WaitingPoint): string {
  if (w.phase !== "error") return `Waits ${pausePoint(w)}: ${w.reason}.`;
  const next =
    w.breakpoints.length > 0
      ? `${w.breakpoints.map((b) => `breakpoint ${b.id} (${breakpointLabel(b.type).toLowerCase()})`).join(", ")} may pause there`
      : "handled as without a debugger (its retry, or the failure)";
  return `${w.reason.replace(/\.$/, "")}. Held until this pause is answered, then ${next}.`;
}
