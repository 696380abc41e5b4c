import { describe, expect, it } from "vitest";
import type { PauseRecord, WaitingPoint } from "../../api/types";
import { waitingPlace, waitingSentence, waitingTurns } from "./waiting-turns";

const PAUSE: PauseRecord = {
  id: "p1",
  breakpointId: "bp1",
  type: "after_step",
  stepPath: "x1",
  phase: "after",
  occurrence: 0,
  pausedAt: 0,
  context: { vars: {}, outputs: {} },
};

function point(stepPath: string, more: Partial<WaitingPoint> = {}): WaitingPoint {
  return {
    stepPath,
    phase: "after",
    occurrence: 0,
    items: [],
    branch: null,
    breakpoints: [{ id: "bp2", type: "after_step" }],
    reason: "After step breakpoint bp2",
    ...more,
  };
}

describe("the branches waiting their turn", () => {
  it("are those behind the pause, failures last, and none once it is answered", () => {
    const x2 = point("x2");
    const failed = point("z", { phase: "error", occurrence: 1, breakpoints: [], reason: "Attempt 1 failed: boom" });
    expect(waitingTurns({ pause: PAUSE, waiting: [x2], held: [failed] })).toEqual([x2, failed]);
    expect(waitingTurns({ pause: null, waiting: [x2], held: [failed] })).toEqual([]);
    // A debug_paused event for x2 patched the view before the view was fetched again: x2 waits no more.
    expect(waitingTurns({ pause: { ...PAUSE, stepPath: "x2" }, waiting: [x2], held: [] })).toEqual([]);
  });

  it("say where each waits and what its turn brings", () => {
    const inItem = point("each[1].work", { items: [1], branch: "b2" });
    expect(waitingPlace(inItem)).toBe("item 1, branch b2");
    expect(waitingPlace(point("x2"))).toBe("");
    expect(waitingSentence(inItem)).toBe("Waits after each[1].work completed: After step breakpoint bp2.");
    expect(
      waitingSentence(point("ask", { phase: "tool_call", occurrence: 2, reason: "Tool call breakpoint bp3" })),
    ).toBe("Waits before ask calls a tool (its tool call 2): Tool call breakpoint bp3.");
    const failed = point("z", { phase: "error", occurrence: 1, breakpoints: [], reason: "Attempt 1 failed: boom." });
    expect(waitingSentence(failed)).toBe(
      "Attempt 1 failed: boom. Held until this pause is answered, then handled as without a debugger (its retry, or the failure).",
    );
    expect(waitingSentence({ ...failed, breakpoints: [{ id: "e", type: "on_error" }] })).toBe(
      "Attempt 1 failed: boom. Held until this pause is answered, then breakpoint e (on error) may pause there.",
    );
  });
});
