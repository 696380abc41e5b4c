import { describe, expect, it } from "vitest";
import type { ConcurrencyBound } from "./command-consumer";
import { LaneShares } from "./lane-shares";

function fixed(n: number): ConcurrencyBound & { set(n: number): void } {
  const listeners = new Set<() => void>();
  return {
    current: () => n,
    onChange: (l) => (listeners.add(l), () => listeners.delete(l)),
    set(next) {
      n = next;
      for (const l of listeners) l();
    },
  };
}

describe("LaneShares", () => {
  it("gives a lone lane with a backlog the whole bound, and an idle lane one message to look with while there is room", () => {
    const shares = new LaneShares(fixed(8), 8);
    const [busy, idle] = [shares.lane(), shares.lane()];
    busy.observe!(1, 100);
    expect(busy.current()).toBe(8);
    expect(idle.current()).toBe(1);
  });

  it("splits the bound between lanes with backlogs; one over its share takes nothing more until it is under", () => {
    const shares = new LaneShares(fixed(8), 8);
    const [a, b] = [shares.lane(), shares.lane()];
    a.observe!(8, 100);
    // Full house: a lane holding nothing takes one past it, however long the others' executions last; then waits.
    expect(b.current()).toBe(1);
    b.observe!(1, 5);
    expect(b.current()).toBe(1);
    expect(shares.inHand()).toBe(9);
    b.observe!(0, 5);
    a.observe!(7, undefined);
    expect(b.current()).toBe(1);
    b.observe!(1, 5);
    // Now both have backlogs: 4 each. `a` holds 7: nothing more until it is under 4.
    expect(a.current()).toBe(4);
    expect(b.current()).toBe(1);
    a.observe!(6, undefined);
    a.observe!(5, undefined);
    a.observe!(4, undefined);
    a.observe!(3, undefined);
    // Under its share again: each may go up to its share, `b` taking the slots `a` freed.
    expect(b.current()).toBe(4);
    expect(a.current()).toBe(4);
  });

  it("lets a lane without a known backlog take one more while there is room", () => {
    const bound = fixed(4);
    const shares = new LaneShares(bound, 4);
    const lane = shares.lane();
    lane.observe!(3, 0);
    expect(lane.current()).toBe(4);
    lane.observe!(4, undefined);
    expect(lane.current()).toBe(4);
    bound.set(2);
    expect(lane.current()).toBe(4);
    expect(shares.inHand()).toBe(4);
  });

  it("wakes every lane's consumer when any lane's hand or the bound changes", () => {
    const bound = fixed(4);
    const shares = new LaneShares(bound, 4);
    const [a, b] = [shares.lane(), shares.lane()];
    let woken = 0;
    b.onChange(() => woken++);
    a.observe!(1, 3);
    bound.set(6);
    expect(woken).toBe(2);
  });

  it("counts the messages settled by every lane, for the yield's drain rate", () => {
    const shares = new LaneShares(fixed(8), 8);
    const [a, b] = [shares.lane(), shares.lane()];
    a.observe!(1, 3);
    a.observe!(2, 2);
    b.observe!(1, 0);
    expect(shares.settled()).toBe(0);
    a.observe!(1, undefined);
    b.observe!(0, undefined);
    a.observe!(0, undefined);
    expect(shares.settled()).toBe(3);
  });

  // Eight at once normally: a lane with one message waiting (8 / 16 lanes, rounded up) is quiet.
  it("holds to a yield only the lanes with more than a few messages waiting; a quiet lane takes what it would without one", () => {
    const bound = fixed(8);
    const shares = new LaneShares(bound, 8);
    const [flooded, quiet] = [shares.lane(), shares.lane()];
    flooded.observe!(2, 100);
    bound.set(2);
    expect(flooded.current()).toBe(2);
    expect(quiet.current()).toBe(1);
    quiet.observe!(1, 1);
    // Half of the eight, as the lanes with backlogs would split them without a yield.
    expect(quiet.current()).toBe(4);
    expect(flooded.current()).toBe(2);
    // Its backlog past a few, it is held to the yield too: the two lanes split its 2, and hold 3.
    quiet.observe!(1, 5);
    expect(quiet.current()).toBe(1);
    expect(flooded.current()).toBe(1);
  });

  it("keeps quiet lanes within the full bound while the others yield, but for one message of a lane holding none", () => {
    const bound = fixed(8);
    const shares = new LaneShares(bound, 8);
    const [flooded, quiet, other, idle] = [shares.lane(), shares.lane(), shares.lane(), shares.lane()];
    flooded.observe!(2, 100);
    bound.set(2);
    // Each quiet lane takes what its bound lets it, one message at a time, as its consumer does.
    const fill = (lane: typeof quiet): void => {
      for (let held = 1; held <= lane.current(); held++) lane.observe!(held, 1);
    };
    fill(quiet);
    // Half of the eight: two lanes have messages waiting.
    expect(shares.inHand()).toBe(6);
    fill(other);
    // Only the two left, though three lanes would split the eight.
    expect(other.current()).toBe(2);
    expect(shares.inHand()).toBe(8);
    expect(idle.current()).toBe(1);
    idle.observe!(1, 0);
    expect(idle.current()).toBe(1);
  });

  it("gives a lane held to a yield no message past the full bound, though it holds none", () => {
    const bound = fixed(8);
    const shares = new LaneShares(bound, 8);
    const [busy, flooded] = [shares.lane(), shares.lane()];
    busy.observe!(8, 0);
    bound.set(2);
    flooded.observe!(0, 100);
    expect(flooded.current()).toBe(0);
    busy.observe!(7, 0);
    expect(flooded.current()).toBe(1);
  });
});
