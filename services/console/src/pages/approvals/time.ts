import { useEffect, useState } from "react";

/** The time now, renewed every `ms`, for "expires in" texts that must not go stale on an open page. */
export function useNow(ms = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), ms);
    return () => window.clearInterval(timer);
  }, [ms]);
  return now;
}

/** "in 12 min" or "3 min ago": how far a time is from now, either way. */
export function formatRelative(ms: number, now: number): string {
  const s = Math.round((ms - now) / 1000);
  const abs = Math.abs(s);
  const text =
    abs < 60
      ? `${abs} s`
      : abs < 3600
        ? `${Math.floor(abs / 60)} min`
        : abs < 86_400
          ? `${Math.floor(abs / 3600)} h`
          : `${Math.floor(abs / 86_400)} d`;
  if (abs < 5) return "now";
  return s > 0 ? `in ${text}` : `${text} ago`;
}
