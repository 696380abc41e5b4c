import type { RateLimitWindow } from "@wf/shared/api";
import type { PlanLimits } from "@wf/shared/auth";
import { secondsUntilReset, type WindowCounts } from "@wf/shared/rate-limit";

export interface Verdict {
  /** The window the headers describe: the exceeded one, else the one with the least left. */
  window: RateLimitWindow;
  limit: number;
  remaining: number;
  /** Set when a window is exceeded: seconds until it resets. */
  retryAfterSeconds: number | null;
}

/**
 * Fixed windows per key (docs/api.md, Rate limits): the minute keyed by epoch minute, the day by UTC
 * date, each request counted whatever its answer. Enterprise has no day window.
 */
export function judge(counts: WindowCounts, limits: PlanLimits, now: number): Verdict {
  const minute = { window: "minute" as const, limit: limits.perMinute, count: counts.minute };
  const windows =
    limits.perDay === null ? [minute] : [minute, { window: "day" as const, limit: limits.perDay, count: counts.day }];
  // Waiting out the minute does not help once the day is used up: the day is reported first.
  const exceeded = [...windows].reverse().find((w) => w.count > w.limit);
  const shown = exceeded ?? windows.reduce((a, b) => (b.limit - b.count < a.limit - a.count ? b : a));
  return {
    window: shown.window,
    limit: shown.limit,
    remaining: Math.max(0, shown.limit - shown.count),
    retryAfterSeconds: exceeded ? secondsUntilReset(exceeded.window, now) : null,
  };
}
