import { describe, expect, it } from "vitest";
import { edgeText, quietText } from "./webhook-flood";

describe("the flood's account of what the edge reported", () => {
  it("gives the median and the highest half-second p99, and how many would start a yield at the default", () => {
    expect(edgeText([12, 80.04, 30, 50, 9.96])).toBe(
      "the edge's half-second p99: median 30 ms, max 80 ms, 2 of 5 at 50 ms or over",
    );
  });

  it("says so when the edge reported nothing", () => {
    expect(edgeText([])).toBe("the edge reported no half second");
  });
});

describe("the flood's account of the quiet owner", () => {
  it("gives how many of its workflows completed and their time from trigger to completion", () => {
    const latencyMs = { n: 3, median: 1064.2, p90: 1120, min: 1050, max: 1702.9, mean: 1200 };
    expect(quietText({ triggered: 4, completed: 3, latencyMs })).toBe(
      "another owner's workflows (each holding its slot for 1 s, as an LLM call does), 4 a second beside the flood: " +
        "3 of 4 completed, trigger to completion median 1064.2 ms, p90 1120 ms, max 1702.9 ms",
    );
  });

  it("gives no time when none completed", () => {
    expect(quietText({ triggered: 4, completed: 0, latencyMs: null })).toMatch(/beside the flood: 0 of 4 completed$/);
  });
});
