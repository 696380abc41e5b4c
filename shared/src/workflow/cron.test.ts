import { describe, expect, it } from "vitest";
import { cronProblem } from "./cron";

describe("cronProblem", () => {
  it("accepts 5-field expressions with lists, ranges, steps and names", () => {
    for (const expr of ["*/15 * * * *", "0 9-17 * * MON-FRI", "5,10 0 1 jan,jul 7", "0 0 1-31/2 * *", "30 4 * 12 0"]) {
      expect(cronProblem(expr), expr).toBeUndefined();
    }
  });

  it("says which field is wrong and why", () => {
    expect(cronProblem("* * * *")).toContain("has 4 fields; it needs 5");
    expect(cronProblem("60 * * * *")).toBe("cron minute field `60`: 60 is out of range 0-59");
    expect(cronProblem("* * 0 * *")).toBe("cron day of month field `0`: 0 is out of range 1-31");
    expect(cronProblem("* * * 13 *")).toBe("cron month field `13`: 13 is out of range 1-12");
    expect(cronProblem("* * * * 8")).toBe("cron day of week field `8`: 8 is out of range 0-7");
    expect(cronProblem("*/0 * * * *")).toBe("cron minute field `*/0`: step `/0` must be a whole number of at least 1");
    expect(cronProblem("* 5-1 * * *")).toBe("cron hour field `5-1`: range 5-1 runs backwards; write it as 1-5");
    expect(cronProblem("* * * FOO *")).toBe("cron month field `FOO`: `FOO` is not a number or a name like JAN");
  });
});
