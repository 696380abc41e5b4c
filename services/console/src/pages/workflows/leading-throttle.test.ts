import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { leadingThrottle } from "./leading-throttle";

/** A run that takes `ms` of the (fake) clock, as reading a long workflow does. */
const taking = (ms: number, runs: string[]) => (text: string) => {
  runs.push(text);
  vi.advanceTimersByTime(ms);
};

describe("leadingThrottle", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs a value pushed after a pause in the next task, and a burst after a rest as long as the runs take, with its latest value", () => {
    const runs: string[] = [];
    const throttle = leadingThrottle(taking(20, runs), 3);
    throttle.push("a");
    expect(runs).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(runs).toEqual(["a"]);

    // Typing on: the run took 20 ms, so nothing for 60 ms after it, then the last text typed.
    for (const text of ["ab", "abc", "abcd"]) {
      vi.advanceTimersByTime(15);
      throttle.push(text);
    }
    vi.advanceTimersByTime(14);
    expect(runs).toEqual(["a"]);
    vi.advanceTimersByTime(1);
    expect(runs).toEqual(["a", "abcd"]);

    // After a pause longer than the rest: at once again.
    vi.advanceTimersByTime(100);
    throttle.push("abcde");
    vi.advanceTimersByTime(0);
    expect(runs).toEqual(["a", "abcd", "abcde"]);
  });

  it("rests less after quicker runs", () => {
    const runs: string[] = [];
    const throttle = leadingThrottle(taking(2, runs), 3);
    throttle.push("a");
    vi.advanceTimersByTime(0);
    vi.advanceTimersByTime(6);
    throttle.push("ab");
    vi.advanceTimersByTime(0);
    expect(runs).toEqual(["a", "ab"]);
  });

  it("runs a flushed value at once, dropping the one pushed before it; a cancelled value never runs", () => {
    const runs: string[] = [];
    const throttle = leadingThrottle(taking(20, runs), 3);
    throttle.push("typed");
    throttle.flush("edited on the canvas");
    vi.advanceTimersByTime(1000);
    expect(runs).toEqual(["edited on the canvas"]);

    throttle.push("left behind");
    throttle.cancel();
    vi.advanceTimersByTime(1000);
    expect(runs).toEqual(["edited on the canvas"]);
  });
});
