import { describe, expect, it } from "vitest";
import { buildBreakpoint } from "./breakpoints";
import { NO_FILTERS, toListFilters, writeUrlFilters } from "./list-filters";

describe("list filters and breakpoints from text", () => {
  it("keeps only the filters the API takes, and a relative range relative to the time given", () => {
    expect(toListFilters({ ...NO_FILTERS, status: "FAILED", triggerSource: "fax", range: "1h" }, 10_000_000)).toEqual({
      status: "FAILED",
      since: 10_000_000 - 3_600_000,
    });
    // since/until are written only for a custom range.
    expect(writeUrlFilters({ ...NO_FILTERS, range: "24h", since: "2026-01-01T00:00" }).toString()).toBe("range=24h");
  });

  it("builds a breakpoint of its type's fields, numbers as numbers, and says what is missing or wrong", () => {
    expect(buildBreakpoint("foreach_item", { step: "loop", index: "2" }, "3")).toEqual({
      ok: true,
      breakpoint: { type: "foreach_item", step: "loop", index: 2, hitCount: 3 },
    });
    expect(buildBreakpoint("before_step", {}, "")).toEqual({
      ok: false,
      message: "Step is required for a before step breakpoint.",
    });
    expect(buildBreakpoint("usage", { tokens: "1.5" }, "")).toEqual({
      ok: false,
      message: "Total tokens must be a whole number.",
    });
  });
});
