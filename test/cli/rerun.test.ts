import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { startExecution } from "@wf/shared/client";
import { ZERO_USAGE } from "@wf/shared/execution";
import { newWorkflowRecord } from "@wf/shared/store";
import { definitionOf, waitForStatus } from "../support/runtime";
import { jsonLines, runCli, startCli, useTestService, workflowFiles } from "./cli-process";

const FAILING = `
name: rerun demo
variables:
  n: { type: number, required: true }
steps:
  - { name: first, type: transform, output: "{{ vars.n * 2 }}" }
  - name: second
    type: code
    language: javascript
    input: { doubled: "{{ steps.first.output }}" }
    code: |
      throw new Error("boom at the second step");
`;

const files = await workflowFiles({
  failing: FAILING,
  fixed: FAILING.replace('throw new Error("boom at the second step");', "return input.doubled + 1;"),
  changed: FAILING.replace('output: "{{ vars.n * 2 }}"', 'output: "{{ vars.n * 3 }}"'),
  broken: "name: broken\nsteps: 3\n",
  // 3,600 s: over the 300 s the free plan allows a code step (`wf run`'s executions are an account-less owner's).
  longer: FAILING.replace("language: javascript\n", "language: javascript\n    timeout: 3600\n"),
});

const service = useTestService();

/** A failed execution of FAILING, run by `wf run` with n=20. */
async function failedExecution(): Promise<string> {
  const r = await runCli(["run", files.failing, "--var", "n=20", "--json"], service().env);
  expect(r.code).toBe(1);
  return String(jsonLines(r.stdout).at(-1)!.executionId);
}

describe("wf rerun", () => {
  it("--json prints the rerun, then its events and result as wf run does, reusing the steps before --from with the source's variables", async () => {
    const sourceId = await failedExecution();
    const r = await runCli(["rerun", sourceId, "--from", "second", "--file", files.fixed, "--json"], service().env);
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines[0]).toEqual({
      type: "rerun",
      executionId: expect.any(String),
      rerunOf: sourceId,
      fromStep: "second",
      reusedSteps: ["first"],
      savedUsage: ZERO_USAGE,
      editedSteps: [],
    });
    const executionId = String(lines[0]!.executionId);
    expect(lines.find((l) => l.type === "step_reused")).toMatchObject({
      step: "first",
      data: { status: "COMPLETED", output: 40, rerunOf: sourceId },
    });
    expect(lines.filter((l) => l.type === "step_started").map((l) => l.step)).toEqual(["second"]);
    expect(lines.at(-1)).toEqual({ type: "result", executionId, status: "COMPLETED", output: 41, error: null });
    const snap = await waitForStatus(service().rt.platform, executionId);
    expect(snap).toMatchObject({
      rerunOf: sourceId,
      rerunFrom: "second",
      triggerSource: "console",
      vars: { n: 20 },
      steps: { first: { reused: true, output: 40 } },
    });
  });

  it("prints the reused steps live, and --plan prints the plan and starts nothing", async () => {
    const sourceId = await failedExecution();
    const stored = () =>
      service()
        .rt.platform.store.executions.list({ ownerId: "local", page: 1, size: 200 })
        .then((p) => p.total);
    const before = await stored();
    const plan = await runCli(["rerun", sourceId, "--from", "second", "--plan"], service().env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toBe(
      [
        `rerun of execution ${sourceId} from step second`,
        "  reused: first",
        "  run:    second",
        "  saves:  0 prompt + 0 completion tokens",
        "",
      ].join("\n"),
    );
    const planJson = await runCli(["rerun", sourceId, "--from", "second", "--plan", "--json"], service().env);
    expect(JSON.parse(planJson.stdout)).toEqual({
      rerunOf: sourceId,
      fromStep: "second",
      reusedSteps: ["first"],
      rerunSteps: ["second"],
      savedUsage: ZERO_USAGE,
      editedSteps: [],
    });
    expect(await stored()).toBe(before);

    const human = await runCli(["rerun", sourceId, "--from", "second"], service().env);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(
      new RegExp(
        `^execution \\w+ reruns ${sourceId} from step second \\(reusing first; saves 0 prompt \\+ 0 completion tokens\\)`,
      ),
    );
    expect(human.stdout).toMatch(new RegExp(`↺ step first reused from execution ${sourceId} \\(COMPLETED\\) → 40`));
    expect(human.stdout).toMatch(/✗ step second failed: .*boom at the second step/);
  });

  it("says which reused steps stand on a debugger's edit, in --plan and as the rerun starts and reuses them", async () => {
    const debug = startCli(["debug", files.failing, "--var", "n=20", "--break", "after_step:first"], service().env, {
      stdin: true,
    });
    await debug.waitForOutput("⏸ paused at first (after_step bp1");
    await debug.waitForOutput("(help lists the commands)");
    const sourceId = /debugging execution (\w+)/.exec(debug.stdout())![1]!;
    debug.send("set output=7");
    await debug.waitForOutput("set: recorded");
    debug.send("c");
    expect((await debug.exited).code).toBe(1);

    const plan = await runCli(["rerun", sourceId, "--from", "second", "--plan"], service().env);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toBe(
      [
        `rerun of execution ${sourceId} from step second`,
        "  reused: first",
        "  edited: first (reused as the debugger's set left them)",
        "  run:    second",
        "  saves:  0 prompt + 0 completion tokens",
        "",
      ].join("\n"),
    );
    const planJson = await runCli(["rerun", sourceId, "--from", "second", "--plan", "--json"], service().env);
    expect(JSON.parse(planJson.stdout)).toMatchObject({ reusedSteps: ["first"], editedSteps: ["first"] });

    // The rerun goes on from the edited output (7 + 1), not the one the step gave (40).
    const human = await runCli(["rerun", sourceId, "--from", "second", "--file", files.fixed], service().env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(
      new RegExp(
        `^execution \\w+ reruns ${sourceId} from step second \\(reusing first; saves 0 prompt \\+ 0 completion tokens\\)\n` +
          "  edited: first \\(reused as the debugger's set left them\\)\n",
      ),
    );
    expect(human.stdout).toContain(
      `↺ step first reused from execution ${sourceId} (COMPLETED, edited in the debugger) → 7`,
    );
    expect(human.stdout).toMatch(/\b8\n$/);
  });

  it("--file gives a stored workflow its next version, which the rerun runs", async () => {
    const { platform } = service().rt;
    const w = newWorkflowRecord({ ownerId: "ops", yaml: FAILING, definition: definitionOf(FAILING) });
    await platform.store.workflows.create(w);
    const sourceId = await startExecution(platform.js, service().rt.ns, {
      workflow: { id: w.id, name: w.name, ownerId: w.ownerId, version: w.version, definition: w.definition },
      inputs: { n: 1 },
      triggerSource: "console",
    });
    expect((await waitForStatus(platform, sourceId)).status).toBe("FAILED");
    const r = await runCli(["rerun", sourceId, "--from", "second", "--file", files.fixed, "--json"], service().env);
    expect(r.code, r.stderr).toBe(0);
    const executionId = String(jsonLines(r.stdout)[0]!.executionId);
    expect(await waitForStatus(platform, executionId)).toMatchObject({
      status: "COMPLETED",
      workflowId: w.id,
      workflowVersion: 2,
      output: 3,
    });
    expect((await platform.store.workflows.get(w.id))?.value).toMatchObject({
      version: 2,
      yaml: await readFile(files.fixed, "utf8"),
    });
  });

  it("exits 1 for a --file whose code step's timeout is over the owner's plan's, as wf workflow import does", async () => {
    const sourceId = await failedExecution();
    for (const plan of [[], ["--plan"]]) {
      const r = await runCli(["rerun", sourceId, "--from", "second", "--file", files.longer, ...plan], service().env);
      expect(r.code, r.stdout).toBe(1);
      expect(r.stderr).toContain(
        `${files.longer}:10:14  steps[1].timeout: step \`second\` asks for a timeout of 3600 s, over the 300 s (5 min)`,
      );
    }
  });

  it("exits 2 naming the top-level steps for an unknown --from, and 1 for a changed step, a missing execution or mistakes in --file", async () => {
    const sourceId = await failedExecution();
    const unknown = await runCli(["rerun", sourceId, "--from", "third"], service().env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "--from third: no top-level step `third` in the workflow; its steps: first, second",
    );
    const changed = await runCli(["rerun", sourceId, "--from", "second", "--file", files.changed], service().env);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain("step `first` comes before `second` but differs");
    const broken = await runCli(["rerun", sourceId, "--from", "second", "--file", files.broken], service().env);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`${files.broken}:2:`);
    const missing = await runCli(["rerun", "nosuchexecution", "--from", "second"], service().env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no execution nosuchexecution");
    const noFrom = await runCli(["rerun", sourceId], service().env);
    expect(noFrom.code).toBe(2);
    expect(noFrom.stderr).toContain("wf rerun needs --from");
  });
});
