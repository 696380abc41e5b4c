import { describe, expect, it } from "vitest";
import { edgeText } from "./webhook-flood";

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
