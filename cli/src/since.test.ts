import { describe, expect, it } from "vitest";
import { parseSince } from "./since";
import { UsageError } from "./usage";

describe("parseSince", () => {
  const now = Date.parse("2026-11-21T12:00:00Z");

  it("reads durations back from now, compound ones included", () => {
    expect(parseSince("10m", now)).toBe(now - 600_000);
    expect(parseSince("1h30m", now)).toBe(now - 5_400_000);
    expect(parseSince("1.5s", now)).toBe(now - 1_500);
    expect(parseSince("250ms", now)).toBe(now - 250);
    expect(parseSince("2d", now)).toBe(now - 172_800_000);
  });

  it("reads ISO-8601 times", () => {
    expect(parseSince("2026-11-21T10:00:00Z", now)).toBe(Date.parse("2026-11-21T10:00:00Z"));
  });

  it("rejects anything else as a usage error", () => {
    for (const bad of ["10", "m", "yesterday", "10 minutes", "2026-13-45T99:00:00Z"]) {
      expect(() => parseSince(bad, now)).toThrow(UsageError);
    }
  });
});
