import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, SCOPES } from "@wf/shared/auth";
import { newId } from "@wf/shared/execution";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { newWorkflowRecord } from "@wf/shared/store";
import { testUser, waitFor, type NatsServerHandle } from "@wf/testing";
import { ENTRIES, startServiceProcess, type ServiceProcess } from "../support/processes";
import { definitionOf, startNatsServer, testConfig } from "../support/runtime";
import { gatedYaml } from "../approvals/support";

let server: NatsServerHandle;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Edge, executor, approvals actor and scheduler, each its own process, as in production. */
async function startAll(ns: string): Promise<{ procs: ServiceProcess[]; base: string }> {
  const env = { NATS_URL: server.url, WF_NAMESPACE: ns, WF_EXEC_LEASE_MS: "1000", PORT: "0", HOST: "127.0.0.1" };
  const procs = await Promise.all([
    startServiceProcess(ENTRIES.edge, env, ["edge listening"]),
    startServiceProcess(ENTRIES.executor, env, ["executor ready"]),
    startServiceProcess(ENTRIES.approvals, env, ["approvals ready"]),
    startServiceProcess(ENTRIES.scheduler, env, ["scheduler ready"]),
  ]);
  const base = /"address":"(http:[^"]+)"/.exec(procs[0]!.output())?.[1];
  if (!base) throw new Error(`no edge address in:\n${procs[0]!.output()}`);
  return { procs, base };
}

async function api(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("an approval outlives every process", () => {
  it("decided after SIGKILL of edge, executor, approvals, scheduler and nats-server, the execution resumes and completes", async () => {
    const ns = `crashappr${newId().slice(-8)}`;
    let client: Platform = await openPlatform(testConfig(server, { WF_NAMESPACE: ns }), "test-client");
    const user = testUser();
    await client.store.users.create(user);
    const { key } = await createApiKey(client.store, { ownerId: user.id, scopes: [...SCOPES] });
    const yaml = gatedYaml();
    const wf = newWorkflowRecord({ ownerId: user.id, yaml, definition: definitionOf(yaml) });
    await client.store.workflows.create(wf);

    let all = await startAll(ns);
    try {
      const started = await api(all.base, key, "POST", `/api/v1/workflows/${wf.id}/executions`, {});
      expect(started.status).toBe(202);
      const executionId = started.body.executionId as string;
      await waitFor(
        async () =>
          (await api(all.base, key, "GET", `/api/v1/executions/${executionId}`)).body.status === "AWAITING_APPROVAL",
        {
          timeoutMs: 20_000,
          what: "the execution to pause",
        },
      );
      const approvals = await api(all.base, key, "GET", `/api/v1/approvals/execution/${executionId}`);
      const approvalId = (approvals.body.approvals as { id: string }[])[0]!.id;

      await client.close();
      await Promise.all(all.procs.map((p) => p.kill()));
      await server.kill();
      await server.start();
      all = await startAll(ns);
      client = await openPlatform(testConfig(server, { WF_NAMESPACE: ns }), "test-client");

      expect((await api(all.base, key, "GET", `/api/v1/executions/${executionId}`)).body.status).toBe(
        "AWAITING_APPROVAL",
      );
      const approved = await api(all.base, key, "POST", `/api/v1/approvals/${approvalId}/approve`, {
        editedItems: { rows: [{ id: 3, action: "escalate" }] },
      });
      expect(approved.status).toBe(200);
      const done = await waitFor(
        async () => {
          const r = await api(all.base, key, "GET", `/api/v1/executions/${executionId}`);
          return ["COMPLETED", "FAILED"].includes(r.body.status as string) ? r.body : undefined;
        },
        { timeoutMs: 30_000, what: "the execution to finish" },
      );
      expect(done).toMatchObject({
        status: "COMPLETED",
        stepResults: { apply: { status: "COMPLETED", output: { applied: [{ id: 3, action: "escalate" }] } } },
      });
    } finally {
      await client.close();
      await Promise.all(all.procs.map((p) => p.kill()));
    }
  });
});
