import { UsageError } from "./usage";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** `--since`: a duration back from now (`90s`, `10m`, `1h30m`, `2d`) or an ISO-8601 time. Epoch ms. */
export function parseSince(text: string, now: number = Date.now()): number {
  const t = text.trim();
  if (DURATION.test(t)) {
    let ms = 0;
    for (const [, amount, unit] of t.matchAll(DURATION_PART)) ms += Number(amount) * UNIT_MS[unit!]!;
    return now - ms;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(t)) {
    const at = Date.parse(t);
    if (!Number.isNaN(at)) return at;
  }
  throw new UsageError(`--since ${text}: give a duration back from now (30s, 10m, 1h30m, 2d) or an ISO-8601 time (2026-11-21T10:00:00Z)`);
}
