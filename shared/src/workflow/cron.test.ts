import { describe, expect, it } from "vitest";
import { cronProblem, nextCronTime } from "./cron";

describe("cronProblem", () => {
  it("accepts 5-field expressions with lists, ranges, steps and names", () => {
    for (const expr of ["*/15 * * * *", "0 9-17 * * MON-FRI", "5,10 0 1 jan,jul 7", "0 0 1-31/2 * *", "30 4 * 12 0"]) {
      expect(cronProblem(expr), expr).toBeUndefined();
    }
  });

  it("accepts 6-field expressions whose first field is the second", () => {
    for (const expr of ["* * * * * *", "*/5 * * * * *", "30 0 9 * * MON-FRI", "0,30 * * * * *"]) {
      expect(cronProblem(expr), expr).toBeUndefined();
    }
  });

  it("says which field is wrong and why", () => {
    expect(cronProblem("* * * *")).toContain("has 4 fields; it needs 5");
    expect(cronProblem("* * * * * * *")).toContain("has 7 fields; it needs 5");
    expect(cronProblem("60 * * * *")).toBe("cron minute field `60`: 60 is out of range 0-59");
    expect(cronProblem("60 * * * * *")).toBe("cron second field `60`: 60 is out of range 0-59");
    expect(cronProblem("0 60 * * * *")).toBe("cron minute field `60`: 60 is out of range 0-59");
    expect(cronProblem("* * 0 * *")).toBe("cron day of month field `0`: 0 is out of range 1-31");
    expect(cronProblem("* * * 13 *")).toBe("cron month field `13`: 13 is out of range 1-12");
    expect(cronProblem("* * * * 8")).toBe("cron day of week field `8`: 8 is out of range 0-7");
    expect(cronProblem("*/0 * * * *")).toBe("cron minute field `*/0`: step `/0` must be a whole number of at least 1");
    expect(cronProblem("* 5-1 * * *")).toBe("cron hour field `5-1`: range 5-1 runs backwards; write it as 1-5");
    expect(cronProblem("* * * FOO *")).toBe("cron month field `FOO`: `FOO` is not a number or a name like JAN");
  });

  it("refuses what the scheduler's cron library cannot read", () => {
    expect(cronProblem("5/5 * * * *")).toMatch(/^cron `5\/5 \* \* \* \*`: /);
  });
});

describe("nextCronTime", () => {
  const at = (iso: string) => Date.parse(iso);

  it("gives the first fire time strictly after the one given", () => {
    expect(nextCronTime("*/15 * * * *", undefined, at("2025-01-01T00:00:00Z"))).toBe(at("2025-01-01T00:15:00Z"));
    expect(nextCronTime("*/15 * * * *", "UTC", at("2025-01-01T00:14:59.999Z"))).toBe(at("2025-01-01T00:15:00Z"));
  });

  it("fires every second with a 6-field expression", () => {
    expect(nextCronTime("* * * * * *", "UTC", at("2025-01-01T00:00:00.500Z"))).toBe(at("2025-01-01T00:00:01Z"));
    expect(nextCronTime("* * * * * *", "UTC", at("2025-01-01T00:00:01Z"))).toBe(at("2025-01-01T00:00:02Z"));
  });

  it("reads the fields in the schedule's time zone, across a daylight-saving change", () => {
    // 09:00 in Berlin is 08:00 UTC in winter and 07:00 UTC in summer (the clocks moved on 30 March).
    expect(nextCronTime("0 9 * * *", "Europe/Berlin", at("2025-03-28T12:00:00Z"))).toBe(at("2025-03-29T08:00:00Z"));
    expect(nextCronTime("0 9 * * *", "Europe/Berlin", at("2025-03-29T12:00:00Z"))).toBe(at("2025-03-30T07:00:00Z"));
  });

  it("is null for an expression that never fires again", () => {
    expect(nextCronTime("0 0 30 2 *", "UTC", at("2025-01-01T00:00:00Z"))).toBeNull();
  });
});
