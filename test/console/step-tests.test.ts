import { Kvm } from "@nats-io/kv";
import { describe, expect, it } from "vitest";
import { ApprovalList, ApprovalsOfExecution, ApprovalView, ExecutionList, StepTestResponse } from "@wf/shared/api";
import type { ApprovalRecord } from "@wf/shared/store";
import { createApiKey } from "@wf/shared/auth";
import { ALL_SCOPES, call, storeWorkflow } from "../api/support";
import { waitFor } from "../support/runtime";
import { consoleCall, consoleSession, type Session, statusAndCode, stepTestCalls, useConsole } from "./support";

const env = useConsole();

const PIPELINE = `
name: pipeline
variables:
  base: { type: number, default: 20 }
steps:
  - { name: fetch, type: transform, output: "{{ vars.base }}" }
  - { name: double, type: transform, output: "{{ steps.fetch.output + 1 }}" }
  - { name: publish, type: transform, output: "{{ steps.double.output }}" }
`;

/** The editor's text: \`fetch\` changed too (a test still takes its recorded output), \`double\` fixed. */
const EDITED = `
name: pipeline
variables:
  base: { type: number, default: 20 }
steps:
  - { name: fetch, type: transform, output: 999 }
  - { name: double, type: transform, output: "{{ steps.fetch.output * 2 }}" }
  - { name: publish, type: transform, output: "{{ steps.double.output }}" }
`;

const CODE = `
name: code-test
variables:
  who: { type: string, default: nobody }
steps:
  - { name: name, type: transform, output: "{{ vars.who }}" }
  - name: say
    type: code
    language: javascript
    input: { who: "{{ steps.name.output }}" }
    code: |
      console.log("hello " + input.who);
      return "said " + input.who;
`;

/** A step inside a foreach item: it reads the item, and a step before it in the same item. */
const LOOP = `
name: loop
steps:
  - { name: base, type: transform, output: 100 }
  - name: each
    type: foreach
    items: "{{ [steps.base.output, steps.base.output + 1, steps.base.output + 2] }}"
    steps:
      - { name: prep, type: transform, output: "{{ item * 10 }}" }
      - { name: add, type: transform, output: "{{ steps.prep.output + item }}" }
`;

/** A gated step: a step test of it opens an approval as a run does. */
const GATED = `
name: gated
steps:
  - { name: fetch, type: transform, output: 1 }
  - name: apply
    type: transform
    output: 2
    manual_approval: { message: "Apply it?", timeout: 3600 }
`;

const { stepTest, started, ended } = stepTestCalls(env);

/** The approval an execution waits on, once its executor has opened it. */
function approvalOf(executionId: string): Promise<ApprovalRecord> {
  return waitFor(async () => (await env().platform.store.approvals.listByExecution(executionId))[0], {
    timeoutMs: 30_000,
    what: `the approval of execution ${executionId}`,
  });
}

describe("POST /api/console/workflows/{id}/step-tests", () => {
  it("runs one edited step on the source's recorded outputs, and nothing after it; the source and the versions stay", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    const sourceId = await started(me, wf.id);
    const source = await ended(sourceId);
    expect(source.steps.fetch!.output).toBe(20);

    const r = await stepTest(me, wf.id, { step: "double", yaml: EDITED, fromExecution: sourceId });
    expect(r.status).toBe(202);
    const answer = StepTestResponse.parse(r.body);
    expect(answer).toMatchObject({ step: "double", contextFrom: sourceId, reusedSteps: ["fetch"] });
    const test = await ended(answer.executionId);
    expect(test).toMatchObject({ status: "COMPLETED", output: 40, triggerSource: "step_test", workflowVersion: null });
    expect(test.steps.fetch).toMatchObject({ status: "COMPLETED", output: 20, reused: true });
    expect(test.steps.double).toMatchObject({ status: "COMPLETED", output: 40 });
    expect(test.steps.double!.reused).toBeUndefined();
    expect(test.steps.publish).toBeUndefined();
    expect(test.stepTest).toEqual({ step: "double", contextFrom: sourceId, itemIndexes: [] });
    expect((await env().platform.store.executions.get(sourceId))!.value).toEqual(source);
    expect((await env().platform.store.workflows.get(wf.id))!.value).toMatchObject({
      version: wf.version,
      yaml: wf.yaml,
    });
  });

  it("refuses edited text whose code step's timeout is over the owner's plan's, as a save does; the stored runs", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, CODE);
    const edited = CODE.replace("language: javascript\n", "language: javascript\n    timeout: 86400\n");
    const r = await stepTest(me, wf.id, { step: "say", yaml: edited });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: "WORKFLOW_INVALID",
      details: [
        { in: "body", field: "yaml", message: expect.stringContaining("asks for a timeout of 86400 s, over the") },
      ],
    });
    expect((await stepTest(me, wf.id, { step: "say" })).status).toBe(202);
  });

  it("without fromExecution, runs the latest saved step on variables alone, no step before it", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    const r = await stepTest(me, wf.id, { step: "fetch", inputs: { base: 7 } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ contextFrom: null, reusedSteps: [] });
    const test = await ended(r.body.executionId as string);
    expect(test).toMatchObject({ status: "COMPLETED", output: 7, workflowVersion: wf.version });
    expect(Object.keys(test.steps)).toEqual(["fetch"]);
    const alone = await ended((await stepTest(me, wf.id, { step: "double" })).body.executionId as string);
    expect(Object.keys(alone.steps)).toEqual(["double"]);
  });

  it("runs a code step in the sandbox and keeps its logs", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, CODE);
    const sourceId = await started(me, wf.id);
    await ended(sourceId);
    const r = await stepTest(me, wf.id, { step: "say", fromExecution: sourceId, inputs: { who: "ignored" } });
    expect(r.status).toBe(202);
    const test = await ended(r.body.executionId as string);
    expect(test).toMatchObject({ status: "COMPLETED", output: "said nobody" });
    expect(test.steps.say!.logs!.join("\n")).toContain("hello nobody");
  });

  it("runs a step inside a foreach in the item named, its item and the steps before it in that item from the source", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, LOOP);
    const sourceId = await started(me, wf.id);
    expect((await ended(sourceId)).steps["each[2].prep"]!.output).toBe(1020);
    // The edit changes prep (the test keeps its recorded output) and add.
    const edited = LOOP.replace("item * 10", "item * 99").replace(
      "steps.prep.output + item",
      "steps.prep.output - item",
    );

    const r = await stepTest(me, wf.id, { step: "add", yaml: edited, fromExecution: sourceId, itemIndexes: [2] });
    expect(r.status).toBe(202);
    const answer = StepTestResponse.parse(r.body);
    expect(answer).toMatchObject({ path: "each[2].add", itemIndexes: [2], reusedSteps: ["base", "each[2].prep"] });
    const test = await ended(answer.executionId);
    expect(test).toMatchObject({ status: "COMPLETED", output: 1020 - 102 });
    expect(Object.keys(test.steps).sort()).toEqual(["base", "each[2].add", "each[2].prep"]);
    expect(test.steps["each[2].prep"]).toMatchObject({ reused: true, output: 1020 });

    // Item 0 by default; without a source, the items are evaluated from what the test runs alone.
    const alone = await stepTest(me, wf.id, { step: "prep" });
    const aloneTest = await ended(StepTestResponse.parse(alone.body).executionId);
    // `steps.base` never ran: the items expression fails, and says which item of which foreach.
    expect(aloneTest.status).toBe("FAILED");
    expect(aloneTest.steps["each[0].prep"]!.error).toContain("cannot test step `prep` in item 0 of `each`");

    const outOfRange = await stepTest(me, wf.id, { step: "add", fromExecution: sourceId, itemIndexes: [7] });
    const outTest = await ended(StepTestResponse.parse(outOfRange.body).executionId);
    expect(outTest).toMatchObject({ status: "FAILED" });
    expect(outTest.steps["each[7].add"]!.error).toContain("has 3 in this context: name an item from 0 to 2");

    const tooMany = await stepTest(me, wf.id, { step: "add", itemIndexes: [0, 1] });
    expect(statusAndCode(tooMany)).toEqual([400, "VALIDATION_FAILED"]);
    expect(tooMany.body.error).toContain("give at most 1 item indexes");
  });

  it("refuses what cannot be tested, saying what to fix, and never reveals another owner's executions", async () => {
    const [me, other] = await Promise.all([consoleSession(env()), consoleSession(env())]);
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    const elsewhere = await storeWorkflow(env(), me.user.id, PIPELINE);
    const theirs = await storeWorkflow(env(), other.user.id, PIPELINE);
    const [mine, ofElsewhere, ofTheirs] = await Promise.all([
      started(me, wf.id),
      started(me, elsewhere.id),
      started(other, theirs.id),
    ]);
    await Promise.all([ended(mine), ended(ofElsewhere), ended(ofTheirs)]);

    const unknown = await stepTest(me, wf.id, { step: "nope", fromExecution: mine });
    expect(statusAndCode(unknown)).toEqual([400, "VALIDATION_FAILED"]);
    expect(unknown.body.error).toContain("name one of its steps: fetch, double, publish");
    expect(statusAndCode(await stepTest(me, wf.id, { step: "double", yaml: "steps: [" }))).toEqual([
      400,
      "WORKFLOW_INVALID",
    ]);
    expect(statusAndCode(await stepTest(me, wf.id, { step: "double", inputs: { base: "x" } }))).toEqual([
      400,
      "VALIDATION_FAILED",
    ]);
    expect(statusAndCode(await stepTest(me, wf.id, { step: "double", extra: 1 }))).toEqual([400, "VALIDATION_FAILED"]);
    for (const fromExecution of [ofElsewhere, ofTheirs, "no-such-execution"]) {
      const refused = await stepTest(me, wf.id, { step: "double", fromExecution });
      expect(statusAndCode(refused), fromExecution).toEqual([404, "NOT_FOUND"]);
    }
    // An execution not finished yet is no context.
    const running = {
      ...(await env().platform.store.executions.get(mine))!.value,
      id: `${mine}r`,
      status: "RUNNING" as const,
    };
    await env().platform.store.executions.create(running);
    const busy = await stepTest(me, wf.id, { step: "double", fromExecution: running.id });
    expect([...statusAndCode(busy), busy.body.status]).toEqual([409, "CONFLICT", "RUNNING"]);
    // The other owner's workflow itself is not theirs to test against either.
    expect(statusAndCode(await stepTest(me, theirs.id, { step: "double", fromExecution: ofTheirs }))).toEqual([
      404,
      "NOT_FOUND",
    ]);
  });

  it("counts under the plan's windows per user: past a Free account's 2,000 a day, 429", async () => {
    const me = await consoleSession(env(), "free");
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    const first = await stepTest(me, wf.id, { step: "fetch" });
    expect(first.status).toBe(202);
    // The day spent as if 2,000 tests ran today, none this minute (the counters' layout: docs/api.md, Rate limits).
    const now = Date.now();
    const kv = await new Kvm(env().platform.nc).open(`${env().ns}_ratelimits`);
    const date = new Date(now).toISOString().slice(0, 10).replaceAll("-", "");
    await kv.put(
      `step-tests-${me.user.id}.${date}`,
      JSON.stringify({ d: 2_000, m: 0, e: Math.floor(now / 60_000) - 1 }),
    );
    const limited = await stepTest(me, wf.id, { step: "fetch" });
    expect([...statusAndCode(limited), limited.body.window, limited.body.limit]).toEqual([
      429,
      "RATE_LIMITED",
      "day",
      2_000,
    ]);
    expect(limited.body.error).toContain("2000 step tests per day (plan free)");
    // Starting the workflow is not a test: it is not held by the tests' count.
    expect(
      (await consoleCall(env(), me, "POST", `/api/console/workflows/${wf.id}/executions`, { body: {} })).status,
    ).toBe(202);
  });

  it("is refused like a console start: a viewer 403, without the CSRF token 403, an inactive account 403", async () => {
    const [me, viewer] = await Promise.all([consoleSession(env()), consoleSession(env())]);
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE, { sharedWith: { [viewer.user.id]: "viewer" } });
    const startAs = (who: Session) =>
      consoleCall(env(), who, "POST", `/api/console/workflows/${wf.id}/executions`, { body: {} });
    expect(statusAndCode(await startAs(viewer))).toEqual([403, "FORBIDDEN"]);
    expect(statusAndCode(await stepTest(viewer, wf.id, { step: "fetch" }))).toEqual([403, "FORBIDDEN"]);
    const noCsrf = await consoleCall(env(), me, "POST", `/api/console/workflows/${wf.id}/step-tests`, {
      body: { step: "fetch" },
      csrf: false,
    });
    expect(statusAndCode(noCsrf)).toEqual([403, "CSRF_FAILED"]);
    const users = env().platform.store.users;
    const account = (await users.get(me.user.id))!;
    await users.update({ ...account.value, status: "deactivated" }, account.version);
    expect(statusAndCode(await startAs(me))).toEqual([403, "ACCOUNT_INACTIVE"]);
    expect(statusAndCode(await stepTest(me, wf.id, { step: "fetch" }))).toEqual([403, "ACCOUNT_INACTIVE"]);
  });

  it("keeps step tests out of the lists unless asked for with triggerSource=step_test", async () => {
    const me = await consoleSession(env());
    const { key } = await createApiKey(env().platform.store, { ownerId: me.user.id, scopes: ALL_SCOPES });
    const wf = await storeWorkflow(env(), me.user.id, PIPELINE);
    const runId = await started(me, wf.id);
    await ended(runId);
    const testId = (await stepTest(me, wf.id, { step: "fetch", fromExecution: runId })).body.executionId as string;
    await ended(testId);

    const v1 = async (query: string) =>
      ExecutionList.parse((await call(env(), "GET", `/api/v1/executions?${query}`, { key })).json());
    const v1Ids = async (query: string) => (await v1(query)).items.map((e) => e.id);
    expect(await v1Ids("")).toEqual([runId]);
    expect((await v1("")).total).toBe(1);
    expect(await v1Ids(`workflowId=${wf.id}`)).toEqual([runId]);
    expect(await v1Ids("triggerSource=step_test")).toEqual([testId]);
    expect(await v1Ids(`triggerSource=step_test&workflowId=${wf.id}&status=COMPLETED`)).toEqual([testId]);
    expect((await call(env(), "GET", "/api/v1/executions?triggerSource=console", { key })).statusCode).toBe(400);

    const consoleIds = async (query: string) =>
      ((await consoleCall(env(), me, "GET", `/api/console/executions?${query}`)).body.items as { id: string }[]).map(
        (e) => e.id,
      );
    expect(await consoleIds("")).toEqual([runId]);
    expect(await consoleIds("triggerSource=console")).toEqual([runId]);
    expect(await consoleIds("triggerSource=step_test")).toEqual([testId]);
    expect(await consoleIds(`workflowId=${wf.id}&triggerSource=step_test`)).toEqual([testId]);
  });

  it("marks a step test's approval and keeps it out of the approval lists unless asked for; a run's is listed", async () => {
    const me = await consoleSession(env());
    const { key } = await createApiKey(env().platform.store, { ownerId: me.user.id, scopes: ALL_SCOPES });
    const wf = await storeWorkflow(env(), me.user.id, GATED);
    const runId = await started(me, wf.id);
    const run = await approvalOf(runId);
    const testId = (await stepTest(me, wf.id, { step: "apply" })).body.executionId as string;
    const test = await approvalOf(testId);
    expect(run.stepTest).toBe(false);
    expect(test).toMatchObject({ stepTest: true, status: "PENDING", executionId: testId, stepName: "apply" });

    const v1 = async (path: string) => (await call(env(), "GET", `/api/v1/approvals${path}`, { key })).json();
    const v1List = ApprovalList.parse(await v1(""));
    expect(v1List.approvals.map((a) => a.id)).toEqual([run.id]);
    expect(v1List.total).toBe(1);
    expect(ApprovalList.parse(await v1("?status=PENDING")).approvals.map((a) => a.id)).toEqual([run.id]);
    expect((await call(env(), "GET", "/api/v1/approvals?triggerSource=step_test", { key })).statusCode).toBe(400);
    // Named by its id or its execution's, it is there, saying what it is; a run's answers as before.
    expect(ApprovalView.parse(await v1(`/${test.id}`)).stepTest).toBe(true);
    const ofTest = ApprovalsOfExecution.parse(await v1(`/execution/${testId}`));
    expect(ofTest.approvals.map((a) => [a.id, a.stepTest])).toEqual([[test.id, true]]);
    expect(Object.keys(await v1(`/${run.id}`))).not.toContain("stepTest");

    const inbox = async (query: string) =>
      ApprovalList.parse((await consoleCall(env(), me, "GET", `/api/console/approvals${query}`)).body);
    expect((await inbox("")).approvals.map((a) => a.id)).toEqual([run.id]);
    expect((await inbox("?status=PENDING")).total).toBe(1);
    const tests = await inbox("?triggerSource=step_test");
    expect(tests.approvals.map((a) => [a.id, a.stepTest])).toEqual([[test.id, true]]);
    expect(tests.total).toBe(1);
    expect((await inbox("?triggerSource=step_test&status=PENDING")).total).toBe(1);
    expect((await consoleCall(env(), me, "GET", `/api/console/approvals/${test.id}`)).body.stepTest).toBe(true);

    // Deciding it carries out the test as for any approval.
    const decided = await consoleCall(env(), me, "POST", `/api/console/approvals/${test.id}/approve`, { body: {} });
    expect(decided.status).toBe(200);
    expect(await ended(testId)).toMatchObject({ status: "COMPLETED", output: 2 });
    expect((await inbox("?triggerSource=step_test&status=APPROVED")).approvals.map((a) => a.id)).toEqual([test.id]);
    expect((await inbox("?status=APPROVED")).total).toBe(0);
  });
});
