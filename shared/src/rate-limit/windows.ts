import type { RateLimitWindow } from "../api";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export function epochMinute(now: number): number {
  return Math.floor(now / MINUTE_MS);
}

/** The last UTC date formatted, since every request formats one. */
let lastDay = { day: Number.NaN, text: "" };

/** The counter key of one API key on one UTC date: `<keyId>.<yyyymmdd>`. */
export function counterKey(keyId: string, now: number): string {
  const day = Math.floor(now / DAY_MS);
  if (day !== lastDay.day) lastDay = { day, text: new Date(now).toISOString().slice(0, 10).replaceAll("-", "") };
  return `${keyId}.${lastDay.text}`;
}

/** Whole seconds until the window resets (the next minute boundary, or 00:00 UTC), at least 1. */
export function secondsUntilReset(window: RateLimitWindow, now: number): number {
  const span = window === "minute" ? MINUTE_MS : DAY_MS;
  const next = (Math.floor(now / span) + 1) * span;
  return Math.max(1, Math.ceil((next - now) / 1000));
}
