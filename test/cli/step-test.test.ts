import { describe, expect, it } from "vitest";
import { startExecution } from "@wf/shared/client";
import { newWorkflowRecord } from "@wf/shared/store";
import { definitionOf, waitForStatus } from "../support/runtime";
import { jsonLines, runCli, useTestService, workflowFiles } from "./cli-process";

const PIPELINE = `
name: step test demo
variables:
  n: { type: number, default: 10 }
steps:
  - { name: fetch, type: transform, output: "{{ vars.n * 2 }}" }
  - name: double
    type: code
    language: javascript
    input: { fetched: "{{ steps.fetch.output }}" }
    code: |
      console.log("doubling " + input.fetched);
      return input.fetched + 1;
  - { name: publish, type: transform, output: "{{ steps.double.output }}" }
`;

const LOOP = `
name: step test loop
steps:
  - name: each
    type: foreach
    items: [5, 6, 7]
    steps:
      - { name: inner, type: transform, output: "{{ item * 2 }}" }
`;

const files = await workflowFiles({
  pipeline: PIPELINE,
  // The edit changes `fetch` too: a step test still takes its recorded output.
  loop: LOOP,
  edited: PIPELINE.replace("vars.n * 2", "vars.n * 100").replace("input.fetched + 1", "input.fetched * 2"),
});

const service = useTestService();

describe("wf run --step", () => {
  it("runs the edited step alone on what --from-execution recorded, and prints its output", async () => {
    const source = await runCli(["run", files.pipeline, "--var", "n=20", "--json"], service().env);
    expect(source.code, source.stderr).toBe(0);
    const sourceId = String(jsonLines(source.stdout).at(-1)!.executionId);

    const r = await runCli(
      ["run", files.edited, "--step", "double", "--from-execution", sourceId, "--json"],
      service().env,
    );
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines[0]).toEqual({
      type: "step_test",
      executionId: expect.any(String),
      step: "double",
      path: "double",
      contextFrom: sourceId,
      reusedSteps: ["fetch"],
    });
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "COMPLETED", output: 80 });
    const test = await waitForStatus(service().rt.platform, String(lines[0]!.executionId));
    expect(test).toMatchObject({ triggerSource: "step_test", output: 80, stepTest: { step: "double" } });
    expect(test.steps.publish).toBeUndefined();
    expect(test.steps.double!.logs!.join("\n")).toContain("doubling 40");

    const human = await runCli(["run", files.pipeline, "--step", "fetch"], service().env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^execution \w+ tests step fetch \(no context: variables only\)/);
  });

  it("tests a stored workflow by id; exits 2 for an unknown --step, 1 for another workflow's execution", async () => {
    const { platform, ns } = service().rt;
    const w = newWorkflowRecord({ ownerId: "ops", yaml: PIPELINE, definition: definitionOf(PIPELINE) });
    await platform.store.workflows.create(w);
    const sourceId = await startExecution(platform.js, ns, {
      workflow: { id: w.id, name: w.name, ownerId: w.ownerId, version: w.version, definition: w.definition },
      inputs: { n: 1 },
      triggerSource: "console",
    });
    expect((await waitForStatus(platform, sourceId)).status).toBe("COMPLETED");
    const r = await runCli(["run", w.id, "--step", "double", "--from-execution", sourceId, "--json"], service().env);
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({ status: "COMPLETED", output: 3 });

    const unknown = await runCli(["run", w.id, "--step", "nope"], service().env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("name one of its steps: fetch, double, publish");
    const foreign = await runCli(
      ["run", files.pipeline, "--step", "double", "--from-execution", sourceId],
      service().env,
    );
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain(`no execution ${sourceId} of workflow cli-`);
  });

  it("runs a step inside a foreach in the --item named; exits 2 for a bad --item", async () => {
    const r = await runCli(["run", files.loop, "--step", "inner", "--item", "1", "--json"], service().env);
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    expect(lines[0]).toMatchObject({ type: "step_test", step: "inner", path: "each[1].inner" });
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "COMPLETED", output: 12 });

    for (const args of [
      ["--step", "inner", "--item", "one"],
      ["--step", "inner", "--item", "0", "--item", "0"],
      ["--item", "0"],
    ]) {
      const refused = await runCli(["run", files.loop, ...args], service().env);
      expect(refused.code, args.join(" ")).toBe(2);
      expect(refused.stderr, args.join(" ")).toContain("--item");
    }
  });
});
