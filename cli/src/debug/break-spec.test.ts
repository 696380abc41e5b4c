import { describe, expect, it } from "vitest";
import { Breakpoint } from "@wf/shared/execution";
import { formatBreakpoint, parseBreakSpec } from "./break-spec";

describe("--break specs", () => {
  it.each([
    ["before_step:fetch", { type: "before_step", step: "fetch" }],
    ["after_step:loop[*].x", { type: "after_step", step: "loop[*].x" }],
    ["on_error", { type: "on_error" }],
    ["on_error:flaky", { type: "on_error", step: "flaky" }],
    ["conditional:vars.n > 3", { type: "conditional", expression: "vars.n > 3" }],
    ["watch:steps.a.output", { type: "watch", expression: "steps.a.output" }],
    ["foreach_item:loop@2", { type: "foreach_item", step: "loop", index: 2 }],
    ["foreach_item:loop?item.id = 3", { type: "foreach_item", step: "loop", expression: "item.id = 3" }],
    ["foreach_item:loop", { type: "foreach_item", step: "loop" }],
    ["on_retry:flaky@3", { type: "on_retry", step: "flaky", attempt: 3 }],
    ["tool_call:agent/files/read", { type: "tool_call", step: "agent", server: "files", tool: "read" }],
    ["usage:tokens=1000,cost=0.5", { type: "usage", tokens: 1000, costUsd: 0.5 }],
  ])("%s", (spec, expected) => {
    expect(parseBreakSpec(spec)).toEqual(expected);
    // What `b` lists is the spec again.
    expect(formatBreakpoint(Breakpoint.parse({ ...expected, id: "bp1" }))).toBe(`bp1  ${spec}`);
  });

  it.each([
    ["nope:x", "unknown breakpoint type `nope`"],
    ["before_step", "before_step needs step"],
    ["foreach_item:loop@two", "`two` is not a whole number"],
    ["usage:bytes=3", "usage takes tokens=N and cost=USD"],
    ["on_retry:x@1", "attempt"],
  ])("refuses %s, saying why", (spec, message) => {
    expect(() => parseBreakSpec(spec)).toThrow(message);
  });
});
