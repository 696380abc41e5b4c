import { describe, expect, it } from "vitest";
import { YieldCourse } from "./yield-course";

describe("YieldCourse", () => {
  it("weighs each concurrency by how long the yield held it, and keeps the highest", () => {
    const c = new YieldCourse();
    c.start(1_000, 4);
    c.change(1_500, 8);
    c.change(2_500, 16);
    // 4 for 0.5 s, 8 for 1 s, 16 for 0.5 s: (2 + 8 + 8) / 2 s.
    expect(c.end(3_000)).toEqual({ yieldedMs: 2_000, meanConcurrency: 9, topConcurrency: 16 });
  });

  it("says nothing of a yield that was not open, and starts afresh at the next", () => {
    const c = new YieldCourse();
    c.change(100, 64);
    expect(c.end(200)).toBeNull();
    c.start(1_000, 4);
    expect(c.end(1_000)).toEqual({ yieldedMs: 0, meanConcurrency: 4, topConcurrency: 4 });
    expect(c.end(2_000)).toBeNull();
    c.start(3_000, 4);
    c.change(3_100, 8);
    expect(c.end(3_200)).toEqual({ yieldedMs: 200, meanConcurrency: 6, topConcurrency: 8 });
  });
});
