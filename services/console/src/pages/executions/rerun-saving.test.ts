import { describe, expect, it } from "vitest";
import type { RerunResponse, StepView } from "../../api/types";
import { rerunSaving } from "./rerun-saving";

const usage = (totalTokens: number, costUsd: number) => ({
  promptTokens: totalTokens,
  completionTokens: 0,
  totalTokens,
  costUsd,
});
const zero = usage(0, 0);
const reused = { status: "COMPLETED", reused: true } as StepView;
const edited = { status: "COMPLETED", reused: true, edited: true } as StepView;
const ran = { status: "COMPLETED", reused: false } as StepView;
const answer: RerunResponse = {
  executionId: "e2",
  rerunOf: "e1",
  fromStep: "check",
  reusedSteps: ["ask"],
  savedUsage: usage(1_500, 0.0048),
  editedSteps: ["ask"],
};

describe("what a rerun saved", () => {
  it("is nothing to say of an execution that reruns none", () => {
    expect(
      rerunSaving({ id: "e1", status: "COMPLETED", rerunOf: null, steps: {}, savedUsage: zero }, ["ask"], null),
    ).toBeNull();
  });

  it("is the planned saving while the rerun waits for an executor, its record still empty", () => {
    expect(
      rerunSaving(
        { id: "e2", status: "PENDING", rerunOf: "e1", steps: {}, savedUsage: zero },
        ["ask", "check"],
        answer,
      ),
    ).toEqual({
      of: "e1",
      fromStep: "check",
      reused: ["ask"],
      edited: ["ask"],
      saved: usage(1_500, 0.0048),
    });
  });

  it("is what the rerun's record says once built: its reused steps, those edited in the debugger, the step it ran from, its saved usage", () => {
    const view = {
      id: "e2",
      status: "RUNNING" as const,
      rerunOf: "e1",
      steps: { ask: reused, plan: edited, check: ran },
      savedUsage: usage(1_800, 0.006),
    };
    expect(rerunSaving(view, ["ask", "plan", "check", "last"], null)).toEqual({
      of: "e1",
      fromStep: "check",
      reused: ["ask", "plan"],
      edited: ["plan"],
      saved: usage(1_800, 0.006),
    });
    // Another rerun's answer says nothing of this one.
    expect(
      rerunSaving({ ...view, status: "PENDING", steps: {}, savedUsage: zero }, ["ask"], {
        ...answer,
        executionId: "e3",
      }),
    ).toBeNull();
  });
});
