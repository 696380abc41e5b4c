import { describe, expect, it } from "vitest";
import type { PauseRecord } from "../../api/types";
import { pauseErrorTitle, pauseSentence } from "./pause-words";

function pause(more: Partial<PauseRecord>): PauseRecord {
  return {
    id: "p1",
    breakpointId: "bp1",
    type: "before_step",
    stepPath: "greet",
    phase: "before",
    occurrence: 0,
    pausedAt: 0,
    context: { vars: {}, outputs: {} },
    ...more,
  };
}

describe("a pause in words", () => {
  it("names the breakpoint, the step and the point in the step, as a sentence", () => {
    expect(pauseSentence(pause({}))).toBe("Before step breakpoint bp1 paused the run before greet starts.");
    expect(pauseSentence(pause({ type: "after_step", phase: "after" }))).toBe(
      "After step breakpoint bp1 paused the run after greet completed.",
    );
    expect(pauseSentence(pause({ type: "foreach_item", stepPath: "each", phase: "item", occurrence: 2 }))).toBe(
      "Foreach item breakpoint bp1 paused the run before item 2 of the foreach each.",
    );
    expect(
      pauseSentence(
        pause({ breakpointId: "bp2", type: "on_error", stepPath: "each[1].double", phase: "error", occurrence: 2 }),
      ),
    ).toBe("On error breakpoint bp2 paused the run where attempt 2 of each[1].double failed.");
    expect(pauseSentence(pause({ type: "on_retry", stepPath: "fetch", phase: "retry", occurrence: 3 }))).toBe(
      "On retry breakpoint bp1 paused the run before attempt 3 of fetch, a retry.",
    );
    const toolCall = { server: "crm", tool: "lookup", arguments: {} };
    expect(
      pauseSentence(
        pause({
          type: "tool_call",
          stepPath: "ask",
          phase: "tool_call",
          occurrence: 1,
          context: { vars: {}, outputs: {}, toolCall },
        }),
      ),
    ).toBe("Tool call breakpoint bp1 paused the run before ask calls the tool crm/lookup (its tool call 1).");
    expect(pauseSentence(pause({ type: "usage", stepPath: "ask", phase: "llm_call", occurrence: 2 }))).toBe(
      "Usage breakpoint bp1 paused the run before LLM call 2 of ask.",
    );
  });

  it("says when a step command or a step into asked for the pause", () => {
    expect(pauseSentence(pause({ breakpointId: "step", stepPath: "last" }))).toBe(
      "A step command asked to pause here, before last starts.",
    );
    expect(pauseSentence(pause({ breakpointId: "step_into", type: "conditional", stepPath: "c1" }))).toBe(
      "Step into started this run, the step's child, paused before c1 starts.",
    );
  });

  it("titles an error by what failed: at an on_error pause the attempt paused at, at an on_retry pause the one before the next", () => {
    expect(pauseErrorTitle({ phase: "error", occurrence: 2 })).toBe("Attempt 2 failed");
    expect(pauseErrorTitle({ phase: "retry", occurrence: 3 })).toBe("Attempt 3 is next; attempt 2 failed");
    expect(pauseErrorTitle({ phase: "before", occurrence: 0 })).toBe("An expression failed");
  });
});
