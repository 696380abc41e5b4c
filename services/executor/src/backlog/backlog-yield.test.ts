import { describe, expect, it } from "vitest";
import { BacklogYield, type BacklogYieldSettings } from "./backlog-yield";

const settings: BacklogYieldSettings = { full: 64, yielded: 4, growthPerSec: 1_000, maxMs: 30_000 };

/** Feeds (ms, pending) samples; returns the limit after each. */
function limits(y: BacklogYield, samples: [number, number][]): number[] {
  return samples.map(([at, pending]) => {
    y.observe(pending, at);
    return y.current();
  });
}

describe("the executor's yield to triggers", () => {
  it("takes fewer at once while the backlog grows by the set rate, and all again once it stops growing", () => {
    const y = new BacklogYield(settings);
    let changes = 0;
    y.onChange(() => changes++);
    // 400 in half a second is 800/s: not yet. 600 in the next half second is 1,200/s: it yields.
    expect(
      limits(y, [
        [0, 0],
        [500, 400],
        [1_000, 1_000],
        [1_500, 3_000],
        [2_000, 3_000],
        [2_500, 2_900],
      ]),
    ).toEqual([64, 64, 4, 4, 64, 64]);
    expect(changes).toBe(2);
  });

  it("runs at full concurrency after the longest yield in a row, until its backlog is drained", () => {
    const y = new BacklogYield({ ...settings, maxMs: 2_000 });
    const grows = (from: number, n: number): [number, number][] =>
      Array.from({ length: n }, (_, i) => [from + i * 500, (from + i * 500) * 2]);
    expect(limits(y, grows(0, 6))).toEqual([64, 4, 4, 4, 4, 64]);
    expect(y.state().kind).toBe("spent");
    // Still growing, then shrinking but not drained: it stays at full concurrency, and does not yield again.
    expect(
      limits(y, [
        [3_000, 9_000],
        [3_500, 5_000],
        [4_000, 8_000],
      ]),
    ).toEqual([64, 64, 64]);
    expect(y.state().kind).toBe("spent");
    // Drained: a new burst makes it yield again.
    expect(
      limits(y, [
        [4_500, 60],
        [5_000, 2_000],
      ]),
    ).toEqual([64, 4]);
    expect(y.state()).toEqual({ kind: "yielding", since: 5_000 });
  });

  it("never yields with a yielded concurrency of 0 or not below the full one", () => {
    for (const yielded of [0, 64, 100]) {
      const y = new BacklogYield({ ...settings, yielded });
      expect(y.yields()).toBe(false);
      expect(
        limits(y, [
          [0, 0],
          [500, 10_000],
          [1_000, 50_000],
        ]),
      ).toEqual([64, 64, 64]);
    }
  });

  it("ignores a sample no later than the one before it", () => {
    const y = new BacklogYield(settings);
    expect(
      limits(y, [
        [1_000, 0],
        [1_000, 5_000],
        [900, 9_000],
      ]),
    ).toEqual([64, 64, 64]);
  });
});
