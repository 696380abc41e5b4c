import { describe, expect, it } from "vitest";
import {
  CancelResponse,
  ExecutionList,
  ExecutionResult,
  ResultNotReadyBody,
  StartExecutionResponse,
} from "@wf/shared/api";
import { waitForStatus } from "../support/runtime";
import { account, call, statusReached, storeWorkflow, useApi, type Account, type ApiEnv } from "./support";

const api = useApi({ runtime: true });

const BASH_YAML = `
name: greet-bash
variables:
  who: { type: string, required: true }
  times: { type: number, default: 1 }
steps:
  - name: hello
    type: code
    language: bash
    input: { who: "{{ vars.who }}" }
    code: |
      echo "greeting $WF_VAR_who"
      echo "{\\"text\\": \\"hello $WF_VAR_who\\", \\"times\\": $WF_VAR_times}"
  - name: shape
    type: transform
    output: { greeting: "{{ steps.hello.output.text }}", times: "{{ steps.hello.output.times }}" }
`;

const SLOW_YAML = `
name: slow
steps:
  - { name: pause, type: wait, seconds: 600 }
`;

async function start(env: ApiEnv, who: Account, workflowId: string, body?: unknown) {
  return call(env, "POST", `/api/v1/workflows/${workflowId}/executions`, {
    key: who.key,
    ...(body === undefined ? {} : { body }),
  });
}

function poll(env: ApiEnv, who: Account, id: string, statuses: string[]) {
  return statusReached(env, who.key, id, statuses);
}

describe("POST /api/v1/workflows/{id}/executions", () => {
  it("answers 202 PENDING; the execution sees its inputs as WF_VAR_…, is polled to COMPLETED and its result read", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, BASH_YAML);
    const r = await start(api(), me, w.id, { inputs: { who: "Ada", times: 3 } });
    expect(r.statusCode).toBe(202);
    const started = StartExecutionResponse.parse(r.json());
    expect(started).toEqual({
      executionId: expect.any(String),
      status: "PENDING",
      workflowId: w.id,
      startedAt: expect.any(Number),
    });

    // Written before the 202: a poll right after it finds the execution.
    const first = await call(api(), "GET", `/api/v1/executions/${started.executionId}`, { key: me.key });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ id: started.executionId, workflowId: w.id, triggerSource: "open_api" });

    const done = await poll(api(), me, started.executionId, ["COMPLETED", "FAILED"]);
    expect(done).toMatchObject({
      status: "COMPLETED",
      currentStep: null,
      completedSteps: 2,
      totalSteps: 2,
      error: null,
      triggerSource: "open_api",
      startAt: expect.any(Number),
      completeAt: expect.any(Number),
      stepResults: {
        hello: {
          status: "COMPLETED",
          output: { text: "hello Ada", times: 3 },
          duration: expect.any(Number),
          attempts: 1,
        },
        shape: { status: "COMPLETED", output: { greeting: "hello Ada", times: 3 } },
      },
    });
    expect(done.stepResults.hello).not.toHaveProperty("input");
    expect(done.stepResults.hello).not.toHaveProperty("logs");

    const result = await call(api(), "GET", `/api/v1/executions/${started.executionId}/result`, { key: me.key });
    expect(result.statusCode).toBe(200);
    expect(ExecutionResult.parse(result.json())).toEqual({
      executionId: started.executionId,
      status: "COMPLETED",
      stepResults: done.stepResults,
      duration: done.completeAt! - done.startAt!,
      output: { greeting: "hello Ada", times: 3 },
      error: null,
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, costUsd: 0 },
    });
  });

  it("keeps each step's input and logs with enableMonitoring", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, BASH_YAML);
    const started = (await start(api(), me, w.id, { inputs: { who: "Bo" }, enableMonitoring: true })).json();
    const done = await poll(api(), me, started.executionId, ["COMPLETED", "FAILED"]);
    expect(done.status).toBe("COMPLETED");
    expect(done.stepResults.hello).toMatchObject({ input: { who: "Bo" }, logs: ["greeting Bo"] });
  });

  it.each([
    [{ inputs: { who: "x", whom: "y" } }, "inputs.whom", /no variable named `whom`/],
    [{ inputs: { who: 42 } }, "inputs.who", /must be a string/],
    [{ inputs: {} }, "inputs.who", /required variable `who`/],
    [{ inputs: { who: "x" }, extra: true }, "extra", /unknown field/],
    [{ inputs: "who=x" }, "inputs", /expected record/],
    [{ inputs: { who: "x" }, enableMonitoring: "yes" }, "enableMonitoring", /expected boolean/],
  ])("answers 400 naming the field, and starts nothing: %j", async (body, field, message) => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, BASH_YAML);
    const r = await start(api(), me, w.id, body);
    expect(r.statusCode).toBe(400);
    const answer = r.json();
    expect(answer.details).toContainEqual({ in: "body", field, message: expect.stringMatching(message) });
    expect(answer.error).toContain(field);
    const listed = await api().platform.store.executions.list({ ownerId: me.user.id, page: 1, size: 10 });
    expect(listed.total).toBe(0);
  });

  it("accepts a missing body (inputs default to {}), and answers 400 for a body that is not an object", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SLOW_YAML);
    const r = await call(api(), "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key });
    expect(r.statusCode).toBe(202);
    const array = await start(api(), me, w.id, [1, 2]);
    expect(array.statusCode).toBe(400);
    expect(array.json().details).toEqual([{ in: "body", field: "", message: "the body must be a JSON object" }]);
    await call(api(), "POST", `/api/v1/executions/${r.json().executionId}/cancel`, { key: me.key });
  });

  it("answers 404 for an invisible workflow and 403 for a viewer; an editor may start", async () => {
    const owner = await account(api());
    const viewer = await account(api());
    const editor = await account(api());
    const stranger = await account(api());
    const w = await storeWorkflow(api(), owner.user.id, SLOW_YAML, {
      sharedWith: { [viewer.user.id]: "viewer", [editor.user.id]: "editor" },
    });
    expect((await start(api(), stranger, w.id)).statusCode).toBe(404);
    expect((await start(api(), stranger, "no-such-workflow")).statusCode).toBe(404);
    const denied = await start(api(), viewer, w.id);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toEqual({ error: expect.stringContaining("viewer"), code: "FORBIDDEN" });
    const ok = await start(api(), editor, w.id);
    expect(ok.statusCode).toBe(202);
    // The execution is the workflow owner's; the editor sees it too.
    const id = ok.json().executionId;
    expect((await call(api(), "GET", `/api/v1/executions/${id}`, { key: editor.key })).statusCode).toBe(200);
    expect((await call(api(), "GET", `/api/v1/executions/${id}`, { key: stranger.key })).statusCode).toBe(404);
    expect((await call(api(), "POST", `/api/v1/executions/${id}/cancel`, { key: viewer.key })).statusCode).toBe(403);
    expect((await call(api(), "POST", `/api/v1/executions/${id}/cancel`, { key: editor.key })).statusCode).toBe(200);
  });
});

describe("executions: result and cancel", () => {
  it("result answers 409 with the current status until the end; cancel answers 200, then the execution is CANCELLED", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SLOW_YAML);
    const { executionId } = (await start(api(), me, w.id)).json();
    await waitForStatus(api().platform, executionId, ["RUNNING"]);

    const early = await call(api(), "GET", `/api/v1/executions/${executionId}/result`, { key: me.key });
    expect(early.statusCode).toBe(409);
    expect(early.headers["x-execution-revision"]).toMatch(/^\d+$/);
    expect(ResultNotReadyBody.parse(early.json())).toEqual({
      error: expect.any(String),
      code: "CONFLICT",
      status: "RUNNING",
    });

    const cancel = await call(api(), "POST", `/api/v1/executions/${executionId}/cancel`, { key: me.key });
    expect(cancel.statusCode).toBe(200);
    expect(CancelResponse.parse(cancel.json())).toEqual({ executionId, status: "CANCELLED" });
    await poll(api(), me, executionId, ["CANCELLED"]);

    const result = await call(api(), "GET", `/api/v1/executions/${executionId}/result`, { key: me.key });
    expect(result.statusCode).toBe(200);
    expect(result.json()).toMatchObject({ executionId, status: "CANCELLED" });

    // Finished: cancel answers 404, like an execution that does not exist.
    const again = await call(api(), "POST", `/api/v1/executions/${executionId}/cancel`, { key: me.key });
    expect(again.statusCode).toBe(404);
    expect((await call(api(), "POST", `/api/v1/executions/no-such-execution/cancel`, { key: me.key })).statusCode).toBe(
      404,
    );
  });

  it("cancel of a COMPLETED execution answers 404; status and result of an unknown one answer 404", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, BASH_YAML);
    const { executionId } = (await start(api(), me, w.id, { inputs: { who: "Cy" } })).json();
    await poll(api(), me, executionId, ["COMPLETED"]);
    expect((await call(api(), "POST", `/api/v1/executions/${executionId}/cancel`, { key: me.key })).statusCode).toBe(
      404,
    );
    expect(
      (await call(api(), "POST", `/api/v1/executions/${executionId}/cancel`, { key: me.key, body: { now: true } }))
        .statusCode,
    ).toBe(400);
    for (const path of ["/api/v1/executions/nope", "/api/v1/executions/nope/result"]) {
      expect((await call(api(), "GET", path, { key: me.key })).statusCode).toBe(404);
    }
  });
});

describe("X-Execution-Revision", () => {
  it("the status view and the result answer the record's revision; one sent back is honoured, a malformed one ignored", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, BASH_YAML);
    const { executionId } = (await start(api(), me, w.id, { inputs: { who: "Rev" } })).json();
    await poll(api(), me, executionId, ["COMPLETED"]);
    const version = (await api().platform.store.executions.get(executionId))!.version;
    const status = await call(api(), "GET", `/api/v1/executions/${executionId}`, { key: me.key });
    const result = await call(api(), "GET", `/api/v1/executions/${executionId}/result`, { key: me.key });
    expect([status.headers["x-execution-revision"], result.headers["x-execution-revision"]]).toEqual([
      String(version),
      String(version),
    ]);

    // A revision ahead of any this store holds (a client's mistake) is read at the leader, and answered as it is.
    for (const sent of [String(version), String(version + 1_000), "-1", "1e3", "x"]) {
      const again = await call(api(), "GET", `/api/v1/executions/${executionId}`, {
        key: me.key,
        headers: { "x-execution-revision": sent },
      });
      expect({ sent, status: again.statusCode, revision: again.headers["x-execution-revision"] }).toEqual({
        sent,
        status: 200,
        revision: String(version),
      });
      expect(again.json()).toEqual(status.json());
    }
  });
});

describe("GET /api/v1/executions", () => {
  it("lists the owner's executions newest first, 20 a page by default, filtered by workflow and status", async () => {
    const me = await account(api());
    const a = await storeWorkflow(api(), me.user.id, BASH_YAML);
    const b = await storeWorkflow(api(), me.user.id, SLOW_YAML);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await start(api(), me, a.id, { inputs: { who: `n${i}` } })).json().executionId);
    const slow = (await start(api(), me, b.id)).json().executionId;
    for (const id of ids) await poll(api(), me, id, ["COMPLETED"]);

    const all = ExecutionList.parse((await call(api(), "GET", "/api/v1/executions", { key: me.key })).json());
    expect(all.total).toBe(4);
    expect(all.size).toBe(20);
    expect(all.items.map((e) => e.id)).toEqual([slow, ...ids.reverse()]);
    expect(all.items[0]).not.toHaveProperty("stepResults");

    const ofA = (
      await call(api(), "GET", `/api/v1/executions?workflowId=${a.id}&status=COMPLETED&size=2`, { key: me.key })
    ).json();
    expect(ofA).toMatchObject({ total: 3, page: 1, size: 2, items: [{ id: ids[0] }, { id: ids[1] }] });
    const other = await account(api());
    expect((await call(api(), "GET", "/api/v1/executions", { key: other.key })).json()).toMatchObject({
      items: [],
      total: 0,
    });
    expect(
      (await call(api(), "GET", `/api/v1/executions?workflowId=${a.id}`, { key: other.key })).json(),
    ).toMatchObject({ total: 0 });

    const bad = await call(api(), "GET", "/api/v1/executions?status=DONE&size=500", { key: me.key });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(["size", "status"]);
    await call(api(), "POST", `/api/v1/executions/${slow}/cancel`, { key: me.key });
  });

  it("with `from`, pages stay put while new executions start; a `from` outside the list is a 400 saying what to pass", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SLOW_YAML);
    const started: string[] = [];
    for (let i = 0; i < 5; i++) started.push((await start(api(), me, w.id)).json().executionId);
    const list = async (query: string) =>
      ExecutionList.parse((await call(api(), "GET", `/api/v1/executions?${query}`, { key: me.key })).json());
    const first = await list("size=2");
    const anchor = first.items[0]!.id;
    const seen = first.items.map((e) => e.id);
    for (let page = 2; page <= 3; page++) {
      started.push((await start(api(), me, w.id)).json().executionId);
      const next = await list(`size=2&page=${page}&from=${anchor}`);
      expect(next.total).toBe(5);
      seen.push(...next.items.map((e) => e.id));
    }
    expect(seen).toEqual(started.slice(0, 5).reverse());
    // Without the anchor, the two started meanwhile push the oldest off page 3.
    expect((await list("size=2&page=3")).items.map((e) => e.id)).toEqual([started[2], started[1]]);

    const other = await account(api());
    const foreign = (await start(api(), other, (await storeWorkflow(api(), other.user.id, SLOW_YAML)).id)).json()
      .executionId;
    for (const from of [foreign, "no-such-execution"]) {
      const bad = await call(api(), "GET", `/api/v1/executions?from=${from}`, { key: me.key });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error).toContain(`from: no execution ${from} in this list`);
    }
    for (const id of [...started, foreign])
      await call(api(), "POST", `/api/v1/executions/${id}/cancel`, { key: id === foreign ? other.key : me.key });
  });
});
