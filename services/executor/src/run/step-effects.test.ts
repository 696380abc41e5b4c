import { describe, expect, it } from "vitest";
import type { StepState } from "@wf/shared/execution";
import { workflowOf } from "./fake-run";
import { actsOutside, carriesOwedWrite, mayHaveActed, writesBeforeActing } from "./step-effects";

const workflow = workflowOf({
  name: "t",
  steps: [
    { name: "js", type: "code", language: "javascript", code: "return 1" },
    { name: "py", type: "code", language: "python", code: "pass" },
    { name: "ask", type: "llm", model: "gpt-4o-mini", prompt: "hi" },
    {
      name: "each",
      type: "foreach",
      items: "{{ [1, 2] }}",
      steps: [{ name: "inner", type: "code", language: "bash", code: "true" }],
    },
  ],
});

function running(name: string, type: string, extra: Partial<StepState> = {}): StepState {
  return {
    name,
    type,
    status: "RUNNING",
    error: null,
    attempts: 1,
    startedAt: 1,
    completedAt: null,
    duration: null,
    waitUntil: null,
    retryAt: null,
    deadline: null,
    childExecutionId: null,
    approvalId: null,
    ...extra,
  } as StepState;
}

describe("what a step's effects reach", () => {
  it("counts processes, models and tool servers as acting outside; JavaScript, transforms and containers as pure", () => {
    const kinds = Object.fromEntries(workflow.steps.map((s) => [s.name, actsOutside(s)]));
    expect(kinds).toEqual({ js: false, py: true, ask: true, each: false });
  });

  it("takes a recorded RUNNING attempt as possibly acted only for a step that acts outside, nested ones by name", () => {
    expect(mayHaveActed(workflow, running("js", "code"))).toBe(false);
    expect(mayHaveActed(workflow, running("py", "code"))).toBe(true);
    expect(mayHaveActed(workflow, running("inner", "code"))).toBe(true);
    expect(mayHaveActed(workflow, running("py", "code", { retryAt: 5 }))).toBe(false);
    expect(mayHaveActed(workflow, running("py", "code", { status: "COMPLETED" }))).toBe(false);
    expect(mayHaveActed(workflow, running("gone", "transform"))).toBe(true);
  });

  it("lets a step whose attempt writes first carry an owed result, a gate only before its attempt, never a wait", () => {
    const steps = workflowOf({
      name: "t",
      steps: [
        { name: "py", type: "code", language: "python", code: "pass" },
        { name: "call", type: "workflow", workflow: "other" },
        { name: "gate", type: "transform", output: 1, manual_approval: { message: "ok?", timeout: 60 } },
        { name: "nap", type: "wait", seconds: 60 },
        { name: "js", type: "code", language: "javascript", code: "return 1" },
        { name: "each", type: "foreach", items: [1], steps: [{ name: "t", type: "transform", output: 1 }] },
      ],
    }).steps;
    const by = (rule: (step: (typeof steps)[number]) => boolean) =>
      Object.fromEntries(steps.map((step) => [step.name, rule(step)]));
    expect(by(writesBeforeActing)).toEqual({ py: true, call: true, gate: true, nap: false, js: false, each: false });
    expect(by(carriesOwedWrite)).toEqual({ py: true, call: true, gate: false, nap: false, js: false, each: true });
  });
});
