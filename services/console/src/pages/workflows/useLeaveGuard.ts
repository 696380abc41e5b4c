import { useEffect, useRef } from "react";
import { useBlocker, type Blocker } from "react-router";

/**
 * Asks before unsaved changes are lost: the browser's own prompt when the tab is closed or
 * reloaded, and a blocker (answered with a dialog) when a link leaves the page. `markClean`
 * lets a save that navigates at once (a new workflow going to its own URL) through, before
 * React has rendered the clean state.
 */
export function useLeaveGuard(dirty: boolean): { blocker: Blocker; markClean(): void } {
  const dirtyNow = useRef(dirty);
  dirtyNow.current = dirty;

  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);

  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirtyNow.current && currentLocation.pathname !== nextLocation.pathname,
  );
  return {
    blocker,
    markClean: () => {
      dirtyNow.current = false;
    },
  };
}
