import { useCallback, useEffect, useRef } from "react";

/**
 * A burst of calls runs `action` once: `waitMs` after the last call, and at the latest `maxWaitMs`
 * after the first, so a steady stream of events still refreshes now and then. Pending work is
 * dropped on unmount.
 */
export function useCoalesced(action: () => void, waitMs: number, maxWaitMs: number): () => void {
  const latest = useRef(action);
  latest.current = action;
  const timer = useRef<number | null>(null);
  const first = useRef<number | null>(null);

  useEffect(
    () => () => {
      if (timer.current !== null) window.clearTimeout(timer.current);
    },
    [],
  );

  return useCallback(() => {
    const now = performance.now();
    first.current ??= now;
    if (timer.current !== null) window.clearTimeout(timer.current);
    const delay = Math.max(0, Math.min(waitMs, first.current + maxWaitMs - now));
    timer.current = window.setTimeout(() => {
      timer.current = null;
      first.current = null;
      latest.current();
    }, delay);
  }, [waitMs, maxWaitMs]);
}
