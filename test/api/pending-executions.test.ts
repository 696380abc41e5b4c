import { describe, expect, it, onTestFinished } from "vitest";
import { ExecutionList, ExecutionStatusView, ResultNotReadyBody } from "@wf/shared/api";
import { startRuntime, waitForStatus } from "../support/runtime";
import { account, call, storeWorkflow, useApi } from "./support";

/** An edge alone: executions stay PENDING until a test starts an executor. */
const api = useApi();

const YAML = `
name: pending-then-run
variables:
  n: { type: number, default: 1 }
steps:
  - { name: add, type: transform, output: "{{ vars.n + 1 }}" }
`;

describe("executions no executor has taken yet", () => {
  it("are polled, listed and cancelled through the API; an executor started later runs the others and never the cancelled one", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, YAML);
    const started = async (n: number) => {
      const res = await call(api(), "POST", `/api/v1/workflows/${w.id}/executions`, {
        key: me.key,
        body: { inputs: { n } },
      });
      expect(res.statusCode).toBe(202);
      return (res.json() as { executionId: string }).executionId;
    };
    const kept = await started(1);
    const cancelled = await started(10);

    const status = async (id: string) => {
      const res = await call(api(), "GET", `/api/v1/executions/${id}`, { key: me.key });
      expect(res.statusCode).toBe(200);
      return ExecutionStatusView.parse(res.json());
    };
    expect(await status(kept)).toMatchObject({
      id: kept,
      workflowId: w.id,
      status: "PENDING",
      completedSteps: 0,
      totalSteps: 1,
      stepResults: {},
    });
    const list = async (query: string) =>
      ExecutionList.parse((await call(api(), "GET", `/api/v1/executions?${query}`, { key: me.key })).json());
    const pending = await list(`workflowId=${w.id}&status=PENDING`);
    expect(pending.items.map((e) => e.id)).toEqual([cancelled, kept]);
    expect(pending.total).toBe(2);
    const early = await call(api(), "GET", `/api/v1/executions/${kept}/result`, { key: me.key });
    expect(early.statusCode).toBe(409);
    expect(ResultNotReadyBody.parse(early.json()).status).toBe("PENDING");

    const cancel = await call(api(), "POST", `/api/v1/executions/${cancelled}/cancel`, { key: me.key });
    expect(cancel.statusCode).toBe(200);

    const runtime = await startRuntime(api().platform.config, { scheduler: false, approvals: false });
    onTestFinished(() => runtime.stop());
    const done = await waitForStatus(api().platform, kept);
    expect(done).toMatchObject({ status: "COMPLETED", output: 2 });
    const stopped = await waitForStatus(api().platform, cancelled);
    expect(stopped.status).toBe("CANCELLED");
    expect(stopped.steps).toEqual({});
    expect((await list(`workflowId=${w.id}&status=PENDING`)).total).toBe(0);
    expect((await list(`workflowId=${w.id}&status=CANCELLED`)).items.map((e) => e.id)).toEqual([cancelled]);
    expect((await list(`workflowId=${w.id}`)).total).toBe(2);
  });

  it("an id that is a subject wildcard names no execution", async () => {
    const me = await account(api());
    const w = await storeWorkflow(api(), me.user.id, YAML);
    expect((await call(api(), "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key })).statusCode).toBe(202);
    for (const id of ["*", "%3E", "a.%3E"]) {
      expect((await call(api(), "GET", `/api/v1/executions/${id}`, { key: me.key })).statusCode).toBe(404);
    }
  });
});
