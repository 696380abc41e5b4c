import { describe, expect, it } from "vitest";
import { parseWorkflow, type Workflow } from "../workflow/index";
import { planRerun, sourceInputs, stepHash } from "./rerun-plan";
import { DebugRequest, newDebugState } from "./debug";
import { ExecutionSnapshot, type ExecutionStatus, type StepState } from "./snapshot";

const YAML = `
name: plan
variables:
  topic: { type: string, default: cats }
  n: { type: number, default: 1 }
steps:
  - { name: draft, type: llm, model: m-1, prompt: "write about {{ vars.topic }}" }
  - name: loop
    type: foreach
    items: "{{ [1, 2] }}"
    steps:
      - { name: polish, type: llm, model: m-1, prompt: "polish {{ item }}" }
  - name: fan
    type: parallel
    branches:
      left: [ { name: lefty, type: transform, output: 1 } ]
      right: [ { name: righty, type: transform, output: 2 } ]
  - { name: maybe, type: transform, condition: "false", output: 0 }
  - { name: check, type: code, language: javascript, code: "return 1" }
  - { name: after, type: transform, output: done }
`;

function workflow(yaml: string): Workflow {
  const parsed = parseWorkflow(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.workflow;
}

const usage = (prompt: number, completion: number, costUsd: number) => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  costUsd,
});

function state(name: string, type: string, status: StepState["status"], extra: Partial<StepState> = {}): StepState {
  return {
    name,
    type,
    status,
    error: null,
    attempts: 1,
    startedAt: 1,
    completedAt: 2,
    duration: 1,
    waitUntil: null,
    retryAt: null,
    deadline: null,
    childExecutionId: null,
    approvalId: null,
    ...extra,
  };
}

function source(
  status: ExecutionStatus = "FAILED",
  steps: Record<string, StepState> = defaultSteps(),
): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: "src1",
    workflowId: "w1",
    workflowName: "plan",
    ownerId: "u1",
    triggerSource: "console",
    status,
    totalSteps: 6,
    createdAt: 1,
    vars: { topic: "dogs", n: 3 },
    definition: workflow(YAML),
    steps,
  });
}

function defaultSteps(): Record<string, StepState> {
  return {
    draft: state("draft", "llm", "COMPLETED", { output: "d", usage: usage(100, 20, 0.1) }),
    loop: state("loop", "foreach", "COMPLETED", { output: ["a", "b"] }),
    "loop[0].polish": state("polish", "llm", "COMPLETED", { output: "a", usage: usage(10, 2, 0.2) }),
    "loop[1].polish": state("polish", "llm", "COMPLETED", { output: "b", usage: usage(10, 3, 0.3) }),
    fan: state("fan", "parallel", "COMPLETED", { output: { left: 1, right: 2 } }),
    lefty: state("lefty", "transform", "COMPLETED", { output: 1 }),
    righty: state("righty", "transform", "COMPLETED", { output: 2 }),
    maybe: state("maybe", "transform", "SKIPPED"),
    check: state("check", "code", "FAILED", { error: "boom" }),
  };
}

describe("planRerun", () => {
  it("reuses every step before fromStep with what is nested in it, and sums their usage", () => {
    const r = planRerun(source(), "check");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.plan).toMatchObject({
      rerunOf: "src1",
      fromStep: "check",
      reusedSteps: ["draft", "loop", "fan", "maybe"],
      rerunSteps: ["check", "after"],
    });
    expect(r.plan.reusedPaths.sort()).toEqual([
      "draft",
      "fan",
      "lefty",
      "loop",
      "loop[0].polish",
      "loop[1].polish",
      "maybe",
      "righty",
    ]);
    expect(r.plan.savedUsage).toEqual({ promptTokens: 120, completionTokens: 25, totalTokens: 145, costUsd: 0.6 });
  });

  it("reuses nothing from the first step", () => {
    const r = planRerun(source(), "draft");
    expect(r.ok && r.plan).toMatchObject({
      reusedSteps: [],
      reusedPaths: [],
      rerunSteps: ["draft", "loop", "fan", "maybe", "check", "after"],
    });
    expect(r.ok && r.plan.savedUsage.totalTokens).toBe(0);
  });

  it("refuses an execution that has not finished", () => {
    const r = planRerun(source("RUNNING"), "check");
    expect(r).toMatchObject({ ok: false, problem: { kind: "not_terminal", status: "RUNNING" } });
  });

  it("refuses a step that is not a top-level one, naming the top-level steps", () => {
    for (const name of ["nope", "polish", "loop[0].polish"]) {
      const r = planRerun(source(), name);
      expect(r).toMatchObject({
        ok: false,
        problem: { kind: "unknown_step", knownSteps: ["draft", "loop", "fan", "maybe", "check", "after"] },
      });
      expect(!r.ok && r.problem.message).toContain("draft, loop, fan, maybe, check, after");
    }
  });

  it("refuses to reuse a step that did not complete", () => {
    const r = planRerun(source(), "after");
    expect(r).toMatchObject({ ok: false, problem: { kind: "not_reusable", step: "check", status: "FAILED" } });
    const steps = defaultSteps();
    delete steps.fan;
    expect(planRerun(source("CANCELLED", steps), "check")).toMatchObject({
      ok: false,
      problem: { kind: "not_reusable", step: "fan", status: null },
    });
  });

  it("refuses to reuse a step the debugger skipped, or one holding such a step, though SKIPPED or COMPLETED", () => {
    for (const [path, top] of [
      ["maybe", "maybe"],
      ["loop[1].polish", "loop"],
      ["righty", "fan"],
    ] as const) {
      const steps = defaultSteps();
      steps[path] = { ...steps[path]!, byDebugger: true };
      const r = planRerun(source("FAILED", steps), "check");
      expect(r).toMatchObject({ ok: false, problem: { kind: "not_reusable", step: top } });
      expect(!r.ok && r.problem.message).toBe(
        `step \`${path}\` was skipped in the debugger in execution src1, so \`${top}\` cannot be reused: rerun from \`${top}\` or an earlier step`,
      );
    }
  });

  it("reuses outputs a debugger's set edited as edited, and names the steps standing on such an edit", () => {
    const src = source();
    const edit = (stepPath: string, field: "output" | "input" | "arguments" | "vars") => ({
      pauseId: `p-${stepPath}`,
      stepPath,
      by: "ada",
      at: 1,
      field,
      before: "recorded",
      after: "edited",
    });
    src.debug = {
      ...newDebugState(DebugRequest.parse({ breakpoints: [] })),
      edits: [
        edit("loop[1].polish", "output"),
        edit("righty", "input"),
        edit("draft", "vars"),
        edit("check", "output"),
      ],
    };
    const r = planRerun(src, "check");
    expect(r.ok && [r.plan.editedSteps, r.plan.editedPaths]).toEqual([
      ["loop", "fan"],
      ["loop[1].polish", "righty"],
    ]);
    expect(planRerun(source(), "check")).toMatchObject({ ok: true, plan: { editedSteps: [], editedPaths: [] } });
  });

  it("takes an edited workflow whose steps before fromStep are unchanged, whatever their key order", () => {
    const edited = workflow(
      YAML.replace(
        '{ name: draft, type: llm, model: m-1, prompt: "write about {{ vars.topic }}" }',
        '{ prompt: "write about {{ vars.topic }}", model: m-1, type: llm, name: draft }',
      ).replace('code: "return 1"', 'code: "return 2"'),
    );
    const r = planRerun(source(), "check", edited);
    expect(r.ok && r.plan.workflow).toBe(edited);
    expect(r.ok && r.plan.reusedSteps).toEqual(["draft", "loop", "fan", "maybe"]);
  });

  it("names the first step before fromStep that an edit changed, nested changes included", () => {
    const nested = workflow(YAML.replace('prompt: "polish {{ item }}"', 'prompt: "polish {{ item }} again"'));
    expect(planRerun(source(), "check", nested)).toMatchObject({
      ok: false,
      problem: { kind: "changed_step", step: "loop" },
    });
    const inserted = workflow(
      YAML.replace("  - { name: maybe,", "  - { name: extra, type: transform, output: 9 }\n  - { name: maybe,"),
    );
    expect(planRerun(source(), "check", inserted)).toMatchObject({
      ok: false,
      problem: { kind: "changed_step", step: "extra" },
    });
    // The step rerun from, and what follows it, may change freely.
    expect(planRerun(source(), "maybe", nested)).toMatchObject({
      ok: false,
      problem: { kind: "changed_step", step: "loop" },
    });
    expect(planRerun(source(), "loop", nested).ok).toBe(true);
  });

  it("hashes a step by its content, not its key order", () => {
    const [a] = workflow("name: a\nsteps:\n  - { name: s, type: transform, output: { x: 1, y: 2 } }\n").steps;
    const [b] = workflow("name: b\nsteps:\n  - { output: { y: 2, x: 1 }, type: transform, name: s }\n").steps;
    const [c] = workflow("name: c\nsteps:\n  - { name: s, type: transform, output: { x: 1, y: 3 } }\n").steps;
    expect(stepHash(a!)).toBe(stepHash(b!));
    expect(stepHash(a!)).not.toBe(stepHash(c!));
  });
});

describe("sourceInputs", () => {
  it("carries the source's variables that the workflow to run still declares", () => {
    const fewer = workflow(YAML.replace("  n: { type: number, default: 1 }\n", ""));
    expect(sourceInputs(source(), fewer)).toEqual({ topic: "dogs" });
    expect(sourceInputs(source(), workflow(YAML))).toEqual({ topic: "dogs", n: 3 });
  });
});
