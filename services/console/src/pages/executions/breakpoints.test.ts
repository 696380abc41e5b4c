import { describe, expect, it } from "vitest";
import { BREAKPOINT_LABELS } from "@wf/shared/execution/breakpoint-labels";
import { BREAKPOINT_SPECS, breakpointLabel } from "./breakpoints";

describe("breakpoint labels", () => {
  it("names each type as the service's waiting points and wf debug name it", () => {
    const labels = Object.fromEntries(Object.entries(BREAKPOINT_SPECS).map(([type, spec]) => [type, spec.label]));
    expect(labels).toEqual(BREAKPOINT_LABELS);
    expect(breakpointLabel("after_step")).toBe("After step");
    expect(breakpointLabel("no_such_type")).toBe("no_such_type");
  });
});
