const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** A duration like `90s`, `10m`, `1h30m`, `30d` in milliseconds, or null when the text is not one. */
export function parseDurationMs(text: string): number | null {
  const t = text.trim();
  if (!DURATION.test(t)) return null;
  let ms = 0;
  for (const [, amount, unit] of t.matchAll(DURATION_PART)) ms += Number(amount) * UNIT_MS[unit!]!;
  return ms;
}
