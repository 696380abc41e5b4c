import { describe, expect, it } from "vitest";
import {
  ConsoleExecutionView,
  ConsolePin,
  ConsoleWorkflowDetail,
  MAX_PIN_BYTES,
  StepTestResponse,
} from "@wf/shared/api";
import { storeWorkflow } from "../api/support";
import { consoleCall, consoleSession, type Session, statusAndCode, stepTestCalls, useConsole } from "./support";

const env = useConsole();

const PIPELINE = `
name: pipeline
variables:
  base: { type: number, default: 20 }
steps:
  - { name: fetch, type: transform, output: "{{ vars.base }}" }
  - { name: double, type: transform, output: "{{ steps.fetch.output * 2 }}" }
  - { name: publish, type: transform, output: "{{ steps.double.output }}" }
`;

const pinPath = (workflowId: string, step: string) =>
  `/api/console/workflows/${workflowId}/pins/${encodeURIComponent(step)}`;

function pin(who: Session, workflowId: string, step: string, body: unknown) {
  return consoleCall(env(), who, "PUT", pinPath(workflowId, step), { body });
}

function unpin(who: Session, workflowId: string, step: string) {
  return consoleCall(env(), who, "DELETE", pinPath(workflowId, step));
}

async function pinsOf(who: Session, workflowId: string) {
  const r = await consoleCall(env(), who, "GET", `/api/console/workflows/${workflowId}`);
  expect(r.status).toBe(200);
  return ConsoleWorkflowDetail.parse(r.body).pins;
}

const { stepTest, started, ended } = stepTestCalls(env);

describe("pinned step outputs", () => {
  it("are set, replaced and removed beside the YAML: the workflow's version and text do not change", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    expect(await pinsOf(me, wf.id)).toEqual({});

    const first = await pin(me, wf.id, "fetch", { output: { rows: [1, 2] } });
    expect(first.status).toBe(200);
    expect(ConsolePin.parse(first.body)).toMatchObject({ output: { rows: [1, 2] }, from: null });
    expect(await pinsOf(me, wf.id)).toEqual({ fetch: first.body });

    expect((await pin(me, wf.id, "fetch", { output: null })).status).toBe(200);
    expect((await pin(me, wf.id, "double", { output: "x" })).status).toBe(200);
    expect(await pinsOf(me, wf.id)).toMatchObject({ fetch: { output: null }, double: { output: "x" } });

    expect((await unpin(me, wf.id, "fetch")).status).toBe(204);
    expect((await unpin(me, wf.id, "fetch")).status).toBe(204);
    expect(Object.keys(await pinsOf(me, wf.id))).toEqual(["double"]);
    expect((await env().platform.store.workflows.get(wf.id))!.value).toMatchObject({
      version: wf.version,
      yaml: wf.yaml,
    });
  });

  it("keep the execution a pin was taken from, which must be one of this workflow's", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    const elsewhere = await storeWorkflow(env(), me.user.id, PIPELINE);
    const run = await started(me, wf.id);
    const other = await started(me, elsewhere.id);
    await Promise.all([ended(run), ended(other)]);
    const r = await pin(me, wf.id, "fetch", { output: 20, from: run });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ output: 20, from: run });
    expect(statusAndCode(await pin(me, wf.id, "fetch", { output: 20, from: other }))).toEqual([404, "NOT_FOUND"]);
  });

  it("are bounded: a missing output, a step not at the top level and a deep body are 400s, a big one 413", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    expect(statusAndCode(await pin(me, wf.id, "fetch", {}))).toEqual([400, "VALIDATION_FAILED"]);
    const unknown = await pin(me, wf.id, "nope", { output: 1 });
    expect(statusAndCode(unknown)).toEqual([400, "VALIDATION_FAILED"]);
    expect(unknown.body.error).toContain("name one of: fetch, double, publish");
    const nested = await storeWorkflow(
      env(),
      me.user.id,
      `name: nested\nsteps:\n  - name: each\n    type: foreach\n    items: [1]\n    steps:\n      - { name: inner, type: transform, output: 1 }\n`,
    );
    const inner = await pin(me, nested.id, "inner", { output: 1 });
    expect(statusAndCode(inner)).toEqual([400, "VALIDATION_FAILED"]);
    expect(inner.body.error).toContain("name one of: each");
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(statusAndCode(await pin(me, wf.id, "fetch", { output: deep }))).toEqual([400, "VALIDATION_FAILED"]);

    const big = await pin(me, wf.id, "fetch", { output: "x".repeat(MAX_PIN_BYTES) });
    expect(statusAndCode(big)).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(big.body.error).toContain("at most 65536");
    // Four pins just under the per-pin limit fit a workflow's 256 KiB; a fifth does not.
    const FIVE = `name: five\nsteps:\n${[1, 2, 3, 4, 5].map((n) => `  - { name: s${n}, type: transform, output: 1 }`).join("\n")}\n`;
    const many = await storeWorkflow(env(), me.user.id, FIVE);
    const chunk = "y".repeat(MAX_PIN_BYTES - 200);
    for (const s of ["s1", "s2", "s3", "s4"]) expect((await pin(me, many.id, s, { output: chunk })).status).toBe(200);
    const fifth = await pin(me, many.id, "s5", { output: "z".repeat(2000) });
    expect(statusAndCode(fifth)).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(fifth.body.error).toContain("unpin another step first");
  });

  it("may be changed by the owner and an editor; a viewer gets 403, anyone else 404", async () => {
    const [owner, editor, viewer, stranger] = await Promise.all([
      consoleSession(env()),
      consoleSession(env()),
      consoleSession(env()),
      consoleSession(env()),
    ]);
    const wf = await storeWorkflow(env(), owner.user.id, PIPELINE, {
      sharedWith: { [editor.user.id]: "editor", [viewer.user.id]: "viewer" },
    });
    expect((await pin(editor, wf.id, "fetch", { output: 1 })).status).toBe(200);
    expect(statusAndCode(await pin(viewer, wf.id, "fetch", { output: 2 }))).toEqual([403, "FORBIDDEN"]);
    expect(statusAndCode(await unpin(viewer, wf.id, "fetch"))).toEqual([403, "FORBIDDEN"]);
    expect(await pinsOf(viewer, wf.id)).toMatchObject({ fetch: { output: 1 } });
    expect(statusAndCode(await pin(stranger, wf.id, "fetch", { output: 2 }))).toEqual([404, "NOT_FOUND"]);
    expect(statusAndCode(await unpin(stranger, wf.id, "fetch"))).toEqual([404, "NOT_FOUND"]);
    expect(statusAndCode(await stepTest(stranger, wf.id, { step: "double" }))).toEqual([404, "NOT_FOUND"]);
  });

  it("stand in for earlier steps in a step test with no earlier run, marked pinned", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    expect((await pin(me, wf.id, "fetch", { output: 5 })).status).toBe(200);
    // A pin of the tested step itself, or of a later one, is no context.
    expect((await pin(me, wf.id, "publish", { output: "later" })).status).toBe(200);

    const r = await stepTest(me, wf.id, { step: "double" });
    expect(r.status).toBe(202);
    const answer = StepTestResponse.parse(r.body);
    expect(answer).toMatchObject({ contextFrom: null, reusedSteps: [], pinnedSteps: ["fetch"] });
    // Changed after the start, the pin does not change the test.
    expect((await pin(me, wf.id, "fetch", { output: 1000 })).status).toBe(200);
    const test = await ended(answer.executionId);
    expect(test).toMatchObject({ status: "COMPLETED", output: 10 });
    expect(test.steps.fetch).toMatchObject({ status: "COMPLETED", output: 5, reused: true, pinned: true });
    expect(test.steps.publish).toBeUndefined();
    expect(test.stepTest).toEqual({ step: "double", contextFrom: null, itemIndexes: [], pinned: { fetch: 5 } });

    const view = await consoleCall(env(), me, "GET", `/api/console/executions/${answer.executionId}`);
    expect(ConsoleExecutionView.parse(view.body).steps.fetch).toMatchObject({ output: 5, reused: true, pinned: true });
  });

  it("win over what fromExecution recorded, and usePins: false ignores them", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    const source = await started(me, wf.id);
    await ended(source);
    expect((await pin(me, wf.id, "fetch", { output: 3 })).status).toBe(200);

    const withPin = await stepTest(me, wf.id, { step: "publish", fromExecution: source });
    expect(withPin.body).toMatchObject({ contextFrom: source, reusedSteps: ["double"], pinnedSteps: ["fetch"] });
    const pinned = await ended(withPin.body.executionId as string);
    expect(pinned.steps.fetch).toMatchObject({ output: 3, pinned: true });
    expect(pinned.steps.double).toMatchObject({ output: 40, reused: true });
    expect(pinned.steps.double!.pinned).toBeUndefined();

    const direct = await ended(
      (await stepTest(me, wf.id, { step: "double", fromExecution: source })).body.executionId as string,
    );
    expect(direct.output).toBe(6);

    const ignored = await stepTest(me, wf.id, { step: "double", fromExecution: source, usePins: false });
    expect(ignored.body).toMatchObject({ reusedSteps: ["fetch"], pinnedSteps: [] });
    const recorded = await ended(ignored.body.executionId as string);
    expect(recorded.output).toBe(40);
    expect(recorded.steps.fetch).toMatchObject({ output: 20, reused: true });
    expect(recorded.steps.fetch!.pinned).toBeUndefined();
  });

  it("never touch a production run: every step runs", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    expect((await pin(me, wf.id, "fetch", { output: 5 })).status).toBe(200);
    expect((await pin(me, wf.id, "double", { output: 7 })).status).toBe(200);
    const run = await ended(await started(me, wf.id));
    expect(run).toMatchObject({ status: "COMPLETED", output: 40, stepTest: null });
    for (const name of ["fetch", "double", "publish"]) {
      expect(run.steps[name]!.reused).toBeUndefined();
      expect(run.steps[name]!.pinned).toBeUndefined();
    }
    expect(run.steps.fetch!.output).toBe(20);
  });
});
