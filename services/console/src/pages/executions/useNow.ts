import { useEffect, useState } from "react";

/** The time, renewed every `everyMs` while `ticking`: running durations and "3 min ago" move on without a refetch. */
export function useNow(everyMs: number, ticking = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs, ticking]);
  return now;
}
