import { parseDurationMs } from "./duration";
import { UsageError } from "./usage";

/** `--since`: a duration back from now (`90s`, `10m`, `1h30m`, `2d`) or an ISO-8601 time. Epoch ms. */
export function parseSince(text: string, now: number = Date.now()): number {
  const t = text.trim();
  const ms = parseDurationMs(t);
  if (ms !== null) return now - ms;
  if (/^\d{4}-\d{2}-\d{2}/.test(t)) {
    const at = Date.parse(t);
    if (!Number.isNaN(at)) return at;
  }
  throw new UsageError(
    `--since ${text}: give a duration back from now (30s, 10m, 1h30m, 2d) or an ISO-8601 time (2026-11-21T10:00:00Z)`,
  );
}
