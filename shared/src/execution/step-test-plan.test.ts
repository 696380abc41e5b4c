import { describe, expect, it } from "vitest";
import { parseWorkflow, type Workflow } from "../workflow/index";
import { ExecutionSnapshot, type ExecutionStatus, type StepState } from "./snapshot";
import { planStepTest } from "./step-test-plan";

const YAML = `
name: tested
steps:
  - { name: fetch, type: llm, model: m-1, prompt: "fetch" }
  - name: loop
    type: foreach
    items: "{{ [1, 2] }}"
    steps:
      - { name: polish, type: transform, output: "{{ item }}" }
  - { name: broken, type: transform, output: 1 }
  - { name: target, type: transform, output: "{{ steps.fetch.output }}" }
  - { name: after, type: transform, output: done }
`;

function workflow(yaml: string): Workflow {
  const parsed = parseWorkflow(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.workflow;
}

const state = (name: string, status: StepState["status"], extra: Partial<StepState> = {}) => ({
  name,
  type: "transform",
  status,
  ...extra,
});

const usage = { promptTokens: 10, completionTokens: 2, totalTokens: 12, costUsd: 0.5 };

function source(status: ExecutionStatus = "FAILED"): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: "src1",
    workflowId: "w1",
    workflowName: "tested",
    ownerId: "u1",
    triggerSource: "console",
    status,
    totalSteps: 5,
    createdAt: 1,
    vars: {},
    definition: workflow(YAML),
    steps: {
      fetch: state("fetch", "COMPLETED", { output: 20, usage }),
      loop: state("loop", "COMPLETED", { output: [1, 2] }),
      "loop[0].polish": state("polish", "COMPLETED", { output: 1 }),
      "loop[1].polish": state("polish", "COMPLETED", { output: 2 }),
      broken: state("broken", "FAILED", { error: "boom" }),
    },
  });
}

describe("planStepTest", () => {
  it("takes the completed steps before the step, nested ones included, even when the edit changed them", () => {
    const edited = workflow(YAML.replace('prompt: "fetch"', 'prompt: "fetch again"'));
    const r = planStepTest(edited, "w1", "target", source());
    expect(r).toMatchObject({
      ok: true,
      plan: { step: "target", contextFrom: "src1", reusedSteps: ["fetch", "loop"], savedUsage: usage },
    });
    if (r.ok) expect(r.plan.reusedPaths.sort()).toEqual(["fetch", "loop", "loop[0].polish", "loop[1].polish"]);
  });

  it("reuses nothing without a source, or for the first step", () => {
    expect(planStepTest(workflow(YAML), "w1", "target", null)).toMatchObject({ ok: true, plan: { reusedSteps: [] } });
    expect(planStepTest(workflow(YAML), "w1", "fetch", source())).toMatchObject({
      ok: true,
      plan: { reusedSteps: [] },
    });
  });

  it("refuses an unknown step naming the steps, another workflow's execution, and one not finished", () => {
    expect(planStepTest(workflow(YAML), "w1", "nope", source())).toMatchObject({
      ok: false,
      problem: { kind: "unknown_step", message: expect.stringContaining("fetch, loop, broken, target, after") },
    });
    expect(planStepTest(workflow(YAML), "w2", "target", source())).toMatchObject({
      ok: false,
      problem: { kind: "other_workflow" },
    });
    expect(planStepTest(workflow(YAML), "w1", "target", source("RUNNING"))).toMatchObject({
      ok: false,
      problem: { kind: "not_terminal", status: "RUNNING" },
    });
  });
});
