/** What the executor's yields did over a span, read from its log (follow-backlog.ts logs each yield's start and end). */
export interface YieldCourseSeen {
  /** Yields begun in the span. */
  started: number;
  /** Of the span, the ms the executor yielded (a yield begun before it or ended after it counts its part within). */
  yieldedMs: number;
  spanMs: number;
  /** Executions at once while it yielded, weighted by time, over the yields that ended (their whole course). */
  meanConcurrency: number | null;
  /** The most at once in any of them. */
  topConcurrency: number | null;
}

interface YieldLine {
  at: number;
  yield: "started" | "ended" | "spent";
  yieldedMs?: number;
  meanConcurrency?: number;
  topConcurrency?: number;
}

/** The yields in `log` (the service's JSON log lines) between `from` and `to` (epoch ms). */
export function yieldsIn(log: string, from: number, to: number): YieldCourseSeen {
  const lines: YieldLine[] = [];
  for (const text of log.split("\n")) {
    if (!text.includes('"yield":')) continue;
    try {
      const rec = JSON.parse(text) as Record<string, unknown> & { t?: string };
      const kind = rec.yield;
      if (kind !== "started" && kind !== "ended" && kind !== "spent") continue;
      lines.push({ ...(rec as Omit<YieldLine, "at">), yield: kind, at: Date.parse(rec.t ?? "") });
    } catch {
      // Another writer's line cut in.
    }
  }
  let started = 0;
  let yieldedMs = 0;
  let weighted = 0;
  let whole = 0;
  let top: number | null = null;
  let openAt: number | null = null;
  for (const l of lines) {
    if (l.yield === "started") {
      openAt = l.at;
      if (l.at >= from && l.at <= to) started += 1;
      continue;
    }
    const begun = openAt ?? l.at - (l.yieldedMs ?? 0);
    openAt = null;
    yieldedMs += Math.max(0, Math.min(l.at, to) - Math.max(begun, from));
    if (l.at < from || begun > to || l.yieldedMs === undefined || l.meanConcurrency === undefined) continue;
    weighted += l.meanConcurrency * l.yieldedMs;
    whole += l.yieldedMs;
    top = Math.max(top ?? 0, l.topConcurrency ?? 0);
  }
  if (openAt !== null) yieldedMs += Math.max(0, to - Math.max(openAt, from));
  return {
    started,
    yieldedMs: Math.round(yieldedMs),
    spanMs: Math.round(to - from),
    meanConcurrency: whole > 0 ? Math.round((10 * weighted) / whole) / 10 : null,
    topConcurrency: top,
  };
}

export function yieldText(y: YieldCourseSeen): string {
  if (y.started === 0 && y.yieldedMs === 0) return "the executor did not yield";
  const share = y.spanMs > 0 ? Math.round((100 * y.yieldedMs) / y.spanMs) : 0;
  const at =
    y.meanConcurrency === null ? "" : ` at ${y.meanConcurrency} at once on average (at most ${y.topConcurrency})`;
  return `the executor yielded ${y.started} time(s), ${(y.yieldedMs / 1000).toFixed(1)} s of the ${(y.spanMs / 1000).toFixed(1)} s of triggers (${share} %)${at}`;
}
