/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  {
    timeoutMs = 10_000,
    intervalMs = 20,
    what = "condition",
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Waits, if need be, until at least `needMs` of the current epoch minute are left: for a test whose counts are a
 * minute's (rate limits, start budgets), which must not straddle two.
 */
export function minuteWithRoom(needMs: number): Promise<true> {
  return waitFor(() => 60_000 - (Date.now() % 60_000) >= needMs || undefined, {
    timeoutMs: 65_000 - needMs,
    intervalMs: 100,
    what: `a minute with ${needMs} ms left`,
  });
}

/**
 * Polls `progress` (a count that only grows) until it reaches `target`. Fails when it has not
 * grown for `stallMs` (something is lost or stuck) or after `timeoutMs` in all: a bound on how
 * long nothing happens rather than on the whole wait, so a slow machine that keeps working is
 * given the time it needs.
 */
export async function waitForProgress(
  progress: () => Promise<number> | number,
  target: number,
  {
    stallMs,
    timeoutMs,
    intervalMs = 500,
    what = "progress",
  }: { stallMs: number; timeoutMs: number; intervalMs?: number; what?: string },
): Promise<void> {
  const start = Date.now();
  let best = -1;
  let grewAt = start;
  for (;;) {
    const now = Date.now();
    const n = await progress();
    if (n >= target) return;
    if (n > best) {
      best = n;
      grewAt = now;
    }
    if (now - grewAt > stallMs)
      throw new Error(`${what}: stalled at ${n} of ${target}, nothing for ${stallMs} ms (after ${now - start} ms)`);
    if (now - start > timeoutMs) throw new Error(`${what}: timed out after ${timeoutMs} ms at ${n} of ${target}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
