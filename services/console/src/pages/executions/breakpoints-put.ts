import { ApiError } from "../../api/client";
import type { Breakpoint, BreakpointInput, BreakpointsAccepted, ExecutionView } from "../../api/types";

/** A change to the breakpoints, made on the list as it stands: made again on a newer one when another came first. */
export type BreakpointsEdit = (current: Breakpoint[]) => BreakpointInput[];

type Listed = Pick<ExecutionView, "breakpoints" | "breakpointsRevision">;

/** How many times an edit is made at most: again on a list read anew after another change came first (409 `stale`). */
const STALE_TRIES = 3;

/**
 * Makes `edit` on the list `view` shows, sent (`send`, the PUT) with the revision it was made on. Refused as stale
 * (another tab, `wf debug` changed the list meanwhile): the list is read again (`reload`) and the edit made on it, so
 * that neither change is lost.
 */
export async function putBreakpoints(
  edit: BreakpointsEdit,
  view: Listed,
  reload: () => Promise<Listed>,
  send: (body: { breakpoints: BreakpointInput[]; revision: number }) => Promise<BreakpointsAccepted>,
): Promise<BreakpointsAccepted> {
  for (let tries = 1; ; tries++) {
    try {
      return await send({ breakpoints: edit(view.breakpoints), revision: view.breakpointsRevision });
    } catch (err) {
      const stale = err instanceof ApiError && err.status === 409 && err.body.reason === "stale";
      if (!stale || tries >= STALE_TRIES) throw err;
      view = await reload();
    }
  }
}
