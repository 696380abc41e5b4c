import { describe, expect, it } from "vitest";
import type { Breakpoint } from "../../api/types";
import { breakpointMarks, toggleMark } from "./canvas-breakpoints";

const paths = ["first", "each", "each[*].double", "last"];

describe("breakpoints as marks on the canvas's nodes", () => {
  it("marks a node once per kind of its enabled breakpoints, a foreach step's on its node, and leaves the others to the panel", () => {
    const breakpoints: Breakpoint[] = [
      { id: "bp1", type: "before_step", step: "first", enabled: true },
      { id: "bp2", type: "after_step", step: "first", enabled: true },
      { id: "bp3", type: "on_error", step: "each[*].double", enabled: true },
      { id: "bp4", type: "before_step", step: "each[2].double", enabled: true },
      { id: "bp5", type: "before_step", step: "each[*].double", enabled: true },
      { id: "bp6", type: "after_step", step: "last", enabled: false },
      { id: "bp7", type: "on_error", enabled: true },
      { id: "bp8", type: "conditional", expression: "vars.x", enabled: true },
      { id: "bp9", type: "foreach_item", step: "each", enabled: true },
    ];
    expect(breakpointMarks(breakpoints)).toEqual({ first: ["before", "after"], double: ["on_error", "before"] });
  });

  it("adds a breakpoint for an unmarked kind, at the path a breakpoint names a foreach's step by", () => {
    expect(toggleMark([], "first", "before", paths)).toEqual([{ type: "before_step", step: "first" }]);
    const kept: Breakpoint = { id: "bp1", type: "conditional", expression: "true", enabled: true };
    expect(toggleMark([kept], "double", "on_error", paths)).toEqual([
      kept,
      { type: "on_error", step: "each[*].double" },
    ]);
  });

  it("removes every enabled breakpoint behind a mark, and enables a disabled one instead of adding another", () => {
    const breakpoints: Breakpoint[] = [
      { id: "bp1", type: "before_step", step: "each[*].double", enabled: true },
      { id: "bp2", type: "before_step", step: "each[1].double", enabled: true },
      { id: "bp3", type: "after_step", step: "each[*].double", enabled: true },
      { id: "bp4", type: "after_step", step: "last", enabled: false },
    ];
    expect(toggleMark(breakpoints, "double", "before", paths)).toEqual([breakpoints[2], breakpoints[3]]);
    expect(toggleMark(breakpoints, "last", "after", paths)).toEqual([
      ...breakpoints.slice(0, 3),
      { ...breakpoints[3], enabled: true },
    ]);
  });
});
