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

  it("lets a pin before the step stand in for the source's record, and ignores pins elsewhere", () => {
    const pinned = { loop: [9], after: 1, gone: 2 };
    const r = planStepTest(workflow(YAML), "w1", "target", source(), { pinned });
    expect(r).toMatchObject({ ok: true, plan: { reusedSteps: ["fetch"], pinnedSteps: ["loop"] } });
    if (r.ok) expect(r.plan.reusedPaths).toEqual(["fetch"]);
    expect(planStepTest(workflow(YAML), "w1", "target", null, { pinned })).toMatchObject({
      ok: true,
      plan: { contextFrom: null, reusedSteps: [], pinnedSteps: ["loop"] },
    });
  });

  it("refuses an unknown step naming the steps, another workflow's execution, and one not finished", () => {
    expect(planStepTest(workflow(YAML), "w1", "nope", source())).toMatchObject({
      ok: false,
      problem: { kind: "unknown_step", message: expect.stringContaining("fetch, loop, polish, broken, target, after") },
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

  describe("of a step inside containers", () => {
    const NESTED = `
name: tested
steps:
  - { name: fetch, type: transform, output: 1 }
  - name: outer
    type: foreach
    items: [1, 2, 3]
    steps:
      - { name: prep, type: transform, output: "{{ item }}", }
      - name: both
        type: parallel
        branches:
          a:
            - { name: left, type: transform, output: l }
            - { name: right, type: transform, output: "{{ steps.left.output }}" }
          b:
            - { name: other, type: transform, output: o }
      - name: inner
        type: foreach
        items: [1, 2]
        steps:
          - { name: deep, type: transform, output: "{{ item }}" }
  - { name: last, type: transform, output: 2 }
`;
    const ran = (): ExecutionSnapshot =>
      ExecutionSnapshot.parse({
        ...source("COMPLETED"),
        definition: workflow(NESTED),
        steps: {
          fetch: state("fetch", "COMPLETED", { output: 1, usage }),
          outer: state("outer", "COMPLETED", { type: "foreach" }),
          "outer[1].prep": state("prep", "COMPLETED", { output: 2, usage }),
          "outer[1].both": state("both", "COMPLETED", { type: "parallel" }),
          "outer[1].left": state("left", "COMPLETED", { output: "l" }),
          "outer[1].right": state("right", "COMPLETED", { output: "l" }),
          "outer[1].other": state("other", "COMPLETED", { output: "o" }),
          "outer[1].inner[0].deep": state("deep", "COMPLETED", { output: 1 }),
          "outer[2].prep": state("prep", "COMPLETED", { output: 3 }),
        },
      });

    it("runs in the item named, reusing the steps before it in that item and branch, and the top-level ones", () => {
      const r = planStepTest(workflow(NESTED), "w1", "right", ran(), { itemIndexes: [1] });
      expect(r).toMatchObject({
        ok: true,
        plan: {
          step: "right",
          path: "outer[1].right",
          itemIndexes: [1],
          reusedSteps: ["fetch", "outer[1].prep", "outer[1].left"],
          savedUsage: { ...usage, promptTokens: 20, completionTokens: 4, totalTokens: 24, costUsd: 1 },
        },
      });
      if (r.ok) expect(r.plan.reusedPaths.sort()).toEqual(["fetch", "outer[1].left", "outer[1].prep"]);
    });

    it("takes item 0 of each foreach by default, and an item per foreach, outermost first", () => {
      expect(planStepTest(workflow(NESTED), "w1", "deep", null)).toMatchObject({
        ok: true,
        plan: { path: "outer[0].inner[0].deep", itemIndexes: [0, 0], reusedSteps: [] },
      });
      const r = planStepTest(workflow(NESTED), "w1", "deep", ran(), { itemIndexes: [1, 1] });
      expect(r).toMatchObject({ ok: true, plan: { path: "outer[1].inner[1].deep" } });
      // Before the inner foreach in item 1: prep and the whole parallel, its branches' steps included.
      if (r.ok) expect(r.plan.reusedSteps).toEqual(["fetch", "outer[1].prep", "outer[1].both"]);
      if (r.ok)
        expect(r.plan.reusedPaths.sort()).toEqual([
          "fetch",
          "outer[1].both",
          "outer[1].left",
          "outer[1].other",
          "outer[1].prep",
          "outer[1].right",
        ]);
    });

    it("refuses more item indexes than foreach steps hold the step", () => {
      expect(planStepTest(workflow(NESTED), "w1", "left", null, { itemIndexes: [0, 1] })).toMatchObject({
        ok: false,
        problem: { kind: "bad_items", message: expect.stringContaining("give at most 1 item indexes") },
      });
      expect(planStepTest(workflow(NESTED), "w1", "last", null, { itemIndexes: [0] })).toMatchObject({
        ok: false,
        problem: { kind: "bad_items", message: "step `last` is in no foreach: give no item indexes" },
      });
    });
  });
});
