import { describe, expect, it } from "vitest";
import { BacklogYield, type BacklogYieldSettings } from "./backlog-yield";

const settings: BacklogYieldSettings = {
  full: 64,
  yielded: 4,
  growthPerSec: 1_000,
  maxMs: 30_000,
  drainShare: 0,
  edgeP99Ms: 0,
};

/**
 * Feeds (ms, pending, settled so far, arrived so far) samples; returns the limit after each. Unless
 * given, what has arrived is what waits plus what was settled: this executor alone drains the queue.
 */
function limits(y: BacklogYield, samples: [number, number, number?, number?][]): number[] {
  return samples.map(([at, pending, settled = 0, arrived = pending + settled]) => {
    y.sample({ pending, at, settled, arrived });
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

  it("ends a yield in the first sample in which triggers arrive at under half that growth, its backlog still waiting", () => {
    const y = new BacklogYield(settings);
    // Samples every 100 ms. A flood of 3,000/s, drained at 100/s: after half a second it yields.
    const flood = (at: number): [number, number, number, number] => [at, (at / 1_000) * 2_900, at / 10, at * 3];
    expect(limits(y, [0, 100, 200, 300, 400, 500].map(flood))).toEqual([64, 64, 64, 64, 64, 4]);
    // Still 1,000/s arriving: it holds on, though the backlog grows by less than that.
    expect(limits(y, [[600, 1_500, 60, 1_600]])).toEqual([4]);
    // 40 in 100 ms (400/s): the triggers have stopped, and its 1,500 waiting are taken at full concurrency.
    expect(limits(y, [[700, 1_530, 70, 1_640]])).toEqual([64]);
    expect(y.state().kind).toBe("full");
  });

  it("with a growth set too low to tell in a sample whether triggers still come, ends a yield once the queue stops growing", () => {
    const y = new BacklogYield({ ...settings, growthPerSec: 5 });
    // 10 a second arrive, none settled: it yields; a sample with none arriving does not end it.
    expect(
      limits(y, [
        [0, 0],
        [500, 5],
        [600, 5],
        [1_000, 9],
        [1_500, 9],
      ]),
    ).toEqual([64, 4, 4, 4, 64]);
  });

  it("does not yield to a backlog grown by a burst that is over", () => {
    const y = new BacklogYield(settings);
    // 3,000 commands in the first 300 ms, then none: half a second shows 6,000/s of growth, but nothing comes now.
    expect(
      limits(y, [
        [0, 0],
        [100, 1_000],
        [200, 2_000],
        [300, 3_000],
        [400, 3_000],
        [500, 3_000],
      ]),
    ).toEqual([64, 64, 64, 64, 64, 64]);
  });

  it("judges growth over half a second, however often it samples", () => {
    const y = new BacklogYield(settings);
    // 200 in one 100 ms sample is 2,000/s, but the half second it ends holds 400 (800/s): no yield.
    expect(
      limits(y, [
        [0, 0],
        [100, 0, 0, 150],
        [200, 0, 0, 300],
        [300, 0, 0, 450],
        [400, 200, 0, 650],
        [500, 400, 0, 800],
      ]),
    ).toEqual([64, 64, 64, 64, 64, 64]);
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
    expect(y.state()).toEqual({ kind: "yielding", since: 5_000, concurrency: 4 });
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

  describe("keeping a share of the drain rate while it yields", () => {
    const sharing = { ...settings, drainShare: 0.5 };

    /** A backlog drained at 800/s at full concurrency, then a flood: samples every 500 ms from `from`. */
    function drainedThenFlooded(y: BacklogYield): number {
      // A backlog waiting all through: 400 settled a half second is a drain rate of 800/s.
      limits(y, [
        [0, 5_000, 0],
        [500, 4_600, 400],
        [1_000, 4_200, 800],
        [1_500, 3_800, 1_200],
      ]);
      expect(y.drainPerSec()).toBe(800);
      // The flood: +2,000 in half a second, still drained at 800/s; it yields at the floor.
      expect(limits(y, [[2_000, 5_800, 1_600]])).toEqual([4]);
      expect(y.drainPerSec()).toBe(800);
      return 1_600;
    }

    /** The i-th half-second sample of the flood drainedThenFlooded began: 2,000 more waiting each. */
    function flood(i: number, settledNow: number): [number, number, number] {
      return [2_000 + 500 * i, 5_800 + 2_000 * i, settledNow];
    }

    it("takes more at once while it settles under its share, up to double a sample, never past the full concurrency", () => {
      const y = new BacklogYield(sharing);
      let settled = drainedThenFlooded(y);
      // At 4 at once it settles 100/s (50 a half second) where its aim is 400/s: 4 x 400/100 = 16, but at most 8.
      expect(limits(y, [flood(1, (settled += 50))])).toEqual([8]);
      // At 8 it settles 200/s: 8 x 400/200 = 16.
      expect(limits(y, [flood(2, (settled += 100))])).toEqual([16]);
      // 400/s at 16: the aim, it stays.
      expect(limits(y, [flood(3, (settled += 200))])).toEqual([16]);
      // Under 1.5 times the aim (550/s): it stays too.
      expect(limits(y, [flood(4, (settled += 275))])).toEqual([16]);
      // It settles nothing (long steps): doubling, but never past 64.
      expect(limits(y, [flood(5, settled), flood(6, settled), flood(7, settled), flood(8, settled)])).toEqual([
        32, 64, 64, 64,
      ]);
      expect(y.state().kind).toBe("yielding");
    });

    it("gives executions back to the triggers when it settles well over its share, never under the floor", () => {
      const y = new BacklogYield(sharing);
      let settled = drainedThenFlooded(y);
      expect(limits(y, [flood(1, (settled += 50)), flood(2, (settled += 100))])).toEqual([8, 16]);
      // 800/s at 16 is twice the aim: 16 x 400/800 = 8.
      expect(limits(y, [flood(3, (settled += 400))])).toEqual([8]);
      // 1,600/s at 8 (over four times the aim): 2, but never under 4.
      expect(limits(y, [flood(4, (settled += 800))])).toEqual([4]);
    });

    it("not knowing its drain rate, doubles while doubling pays, steps back where it stops, and tries again", () => {
      // No backlog waiting all through a sample before the flood: nothing learnt.
      const y = new BacklogYield(sharing);
      const fromZero = (i: number, settled: number): [number, number, number] => [500 * i, 2_000 * i, settled];
      expect(limits(y, [fromZero(0, 0), fromZero(1, 10)])).toEqual([64, 4]);
      expect(y.drainPerSec()).toBe(null);
      // 4 at once settle 100/s: it doubles. The half second after a doubling holds its new executions' start and is
      // not judged: 8 settle 120/s there, then 200/s (twice as much): again. 16 settle 240/s, under 1.25 x 200: back
      // to 8, where it holds three samples, then tries 16 again.
      expect(
        limits(y, [
          fromZero(2, 60),
          fromZero(3, 120),
          fromZero(4, 220),
          fromZero(5, 320),
          fromZero(6, 440),
          fromZero(7, 540),
          fromZero(8, 640),
          fromZero(9, 740),
          fromZero(10, 840),
        ]),
      ).toEqual([8, 8, 16, 16, 8, 8, 8, 8, 16]);
      expect(y.state()).toMatchObject({
        kind: "yielding",
        concurrency: 16,
        probe: { phase: "climb", before: 200, waited: false },
      });
      // This time 16 settle 300/s (1.5 x): it goes on to 32, then 64, and holds at the full concurrency.
      expect(
        limits(y, [
          fromZero(11, 950),
          fromZero(12, 1_100),
          fromZero(13, 1_260),
          fromZero(14, 1_460),
          fromZero(15, 1_660),
          fromZero(16, 1_910),
        ]),
      ).toEqual([16, 32, 32, 64, 64, 64]);
      expect(y.state()).toMatchObject({ kind: "yielding", concurrency: 64, probe: { phase: "hold", samples: 0 } });
    });

    it("keeps the yielded concurrency all through with a share of 0", () => {
      const fixed = new BacklogYield({ ...sharing, drainShare: 0 });
      drainedThenFlooded(fixed);
      expect(limits(fixed, [[2_500, 7_800, 1_610]])).toEqual([4]);
      const unknown = new BacklogYield({ ...sharing, drainShare: 0 });
      expect(
        limits(unknown, [
          [0, 0, 0],
          [500, 2_000, 10],
          [1_000, 4_000, 60],
          [1_500, 6_000, 160],
        ]),
      ).toEqual([64, 4, 4, 4]);
    });

    it("learns the drain rate only from half seconds with a backlog waiting all through and not growing, not yielding", () => {
      const y = new BacklogYield(sharing);
      // Idle (nothing waiting), then a backlog (growing under the yield's 1,000/s) that waits all through one sample: 300/s.
      limits(y, [
        [0, 0, 0],
        [500, 0, 500],
        [1_000, 400, 700],
        [1_500, 300, 850],
      ]);
      expect(y.drainPerSec()).toBe(300);
      // Then a sample at 1,000/s moves it by 30 %: 300 + 0.3 x 700 = 510.
      limits(y, [[2_000, 200, 1_350]]);
      expect(y.drainPerSec()).toBeCloseTo(510);
      // A flood: the half second that starts the yield ran at full concurrency, but its backlog grew (100/s
      // settled while executions begin is no drain rate); the yielding one after it does not count either.
      limits(y, [
        [2_500, 2_000, 1_400],
        [3_000, 4_000, 1_450],
      ]);
      expect(y.state().kind).toBe("yielding");
      expect(y.drainPerSec()).toBeCloseTo(510);
    });
  });
  describe("judging the edges' latency", () => {
    const judging = { ...settings, edgeP99Ms: 50 };

    /** Half-second samples of a flood: 2,000 more waiting each, the slowest edge's p99 as given. */
    function flooded(y: BacklogYield, p99s: (number | null)[], from = 0): number[] {
      return p99s.map((edgeP99Ms, i) => {
        const at = from + 500 * i;
        y.sample({ pending: 4 * at, at, settled: 0, arrived: 4 * at, edgeP99Ms });
        return y.current();
      });
    }

    it("does not yield to a growing backlog while every edge answers its triggers under the set p99, or none is heard", () => {
      const y = new BacklogYield(judging);
      expect(flooded(y, [null, 10, 49.9, null, 30, 49])).toEqual([64, 64, 64, 64, 64, 64]);
      expect(y.state().kind).toBe("full");
    });

    it("yields once an edge is that slow, holds while it is over half of it, and is over once every edge is under half", () => {
      const y = new BacklogYield(judging);
      // Slow at 50 ms: the yield starts at 4; between 25 and 50 it holds (no share to keep here).
      expect(flooded(y, [null, 50, 40, 25])).toEqual([64, 4, 4, 4]);
      // Under 25 ms: the yield is over, though the queue still grows.
      expect(flooded(y, [24.9, 10], 2_000)).toEqual([64, 64]);
      expect(y.state().kind).toBe("full");
      // Slow again: it yields again, from the floor.
      expect(flooded(y, [80], 3_000)).toEqual([4]);
      // No edge heard any more (none answers triggers): over too.
      expect(flooded(y, [null], 3_500)).toEqual([64]);
    });

    it("keeps the share of the drain rate while an edge is between half the set p99 and all of it", () => {
      const y = new BacklogYield({ ...judging, drainShare: 0.5 });
      // No drain rate known: it probes, doubling while that pays (here: settled grows with the concurrency).
      const at = (i: number, settled: number, edgeP99Ms: number): void =>
        y.sample({ pending: 2_000 * i, at: 500 * i, settled, arrived: 2_000 * i + settled, edgeP99Ms });
      at(0, 0, 0);
      at(1, 10, 60);
      expect(y.current()).toBe(4);
      at(2, 60, 30);
      expect(y.current()).toBe(8);
      // The half second of the doubling is not judged.
      at(3, 120, 45);
      expect(y.current()).toBe(8);
      at(4, 220, 45);
      expect(y.current()).toBe(16);
      expect(y.state().kind).toBe("yielding");
    });

    it("with a p99 of 0 set, yields whatever the edges' latency", () => {
      const y = new BacklogYield({ ...judging, edgeP99Ms: 0 });
      expect(flooded(y, [null, 1, 1, null])).toEqual([64, 4, 4, 4]);
    });
  });
});
