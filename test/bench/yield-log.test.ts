import { describe, expect, it } from "vitest";
import { yieldsIn, yieldText } from "./yield-log";

const line = (t: number, rec: Record<string, unknown>): string =>
  JSON.stringify({ t: new Date(t).toISOString(), level: "info", msg: "m", ...rec });

describe("yieldsIn", () => {
  it("counts the yields of a span, the time yielded within it, and their mean concurrency", () => {
    const log = [
      line(500, { yield: "started", concurrency: 4 }),
      line(1_500, { yield: "ended", concurrency: 256, yieldedMs: 1_000, meanConcurrency: 6, topConcurrency: 8 }),
      '{"t":"x","msg":"another line"}',
      line(3_000, { yield: "started", concurrency: 4 }),
      line(6_000, { yield: "ended", concurrency: 256, yieldedMs: 3_000, meanConcurrency: 10, topConcurrency: 16 }),
      line(9_000, { yield: "started", concurrency: 4 }),
    ].join("\n");
    // From 1,000 to 10,000: the first yield's last half second, the second whole, the third's first second.
    const y = yieldsIn(log, 1_000, 10_000);
    expect(y).toEqual({ started: 2, yieldedMs: 4_500, spanMs: 9_000, meanConcurrency: 9, topConcurrency: 16 });
    expect(yieldText(y)).toBe(
      "the executor yielded 2 time(s), 4.5 s of the 9.0 s of triggers (50 %) at 9 at once on average (at most 16)",
    );
  });

  it("says so when the executor never yielded", () => {
    expect(yieldText(yieldsIn(line(0, { msg: "ready" }), 0, 1_000))).toBe("the executor did not yield");
  });
});
