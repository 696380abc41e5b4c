import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendDebugCommand } from "@wf/shared/client";
import { DebugRequest, newId, type ExecutionSnapshot } from "@wf/shared/execution";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { waitFor, type NatsServerHandle } from "@wf/testing";
import { ENTRIES, startServiceProcess, type ServiceProcess } from "../support/processes";
import { run, startNatsServer, testConfig, waitForStatus } from "../support/runtime";

let server: NatsServerHandle;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Executor, approvals actor and scheduler, each its own process, as in production. */
async function startServices(ns: string): Promise<ServiceProcess[]> {
  const env = { NATS_URL: server.url, WF_NAMESPACE: ns, WF_EXEC_LEASE_MS: "1000" };
  return Promise.all([
    startServiceProcess(ENTRIES.executor, env, ["executor ready"]),
    startServiceProcess(ENTRIES.approvals, env, ["approvals ready"]),
    startServiceProcess(ENTRIES.scheduler, env, ["scheduler ready"]),
  ]);
}

const FAILING_UNTIL_FIXED = `
  name: fixable
  variables:
    fixed: { type: boolean, default: false }
  steps:
    - { name: prepare, type: transform, output: 20 }
    - name: apply
      type: code
      language: javascript
      input: { fixed: "{{ vars.fixed }}", n: "{{ steps.prepare.output }}" }
      code: |
        if (!input.fixed) throw new Error("not fixed yet");
        return input.n + 1;
`;

async function paused(p: Platform, id: string): Promise<ExecutionSnapshot> {
  return waitFor(
    async () => {
      const s = (await p.store.executions.get(id))?.value;
      return s?.debug?.pause && s.holder === null ? s : undefined;
    },
    { timeoutMs: 30_000, what: "the execution to pause" },
  );
}

describe("a debug pause outlives every process", () => {
  it("paused at a failure, after SIGKILL of executor, approvals, scheduler and nats-server it is still paused, and commands after the restart are obeyed", async () => {
    const ns = `crashdbg${newId().slice(-8)}`;
    let client: Platform = await openPlatform(testConfig(server, { WF_NAMESPACE: ns }), "test-client");
    let procs = await startServices(ns);
    try {
      const id = await run(client, FAILING_UNTIL_FIXED, {
        debug: DebugRequest.parse({ breakpoints: [{ type: "on_error", step: "apply" }] }),
      });
      const before = await paused(client, id);
      expect(before.debug!.pause).toMatchObject({
        phase: "error",
        stepPath: "apply",
        context: { error: expect.stringContaining("not fixed yet") },
      });

      await client.close();
      await Promise.all(procs.map((p) => p.kill()));
      await server.kill();
      await server.start();
      procs = await startServices(ns);
      client = await openPlatform(testConfig(server, { WF_NAMESPACE: ns }), "test-client");

      const after = await paused(client, id);
      expect(after).toMatchObject({
        status: "RUNNING",
        currentStep: "apply",
        debug: { pause: { id: before.debug!.pause!.id } },
      });
      expect(after.steps.apply).toMatchObject({ status: "RUNNING", attempts: 1 });

      const pauseId = before.debug!.pause!.id;
      const set = await sendDebugCommand(client.js, client.store, ns, id, pauseId, {
        command: "set",
        body: { vars: { fixed: true } },
        by: "ada",
      });
      expect(set.ok).toBe(true);
      const retry = await sendDebugCommand(client.js, client.store, ns, id, pauseId, {
        command: "retry",
        body: {},
        by: "ada",
      });
      expect(retry.ok).toBe(true);
      expect(await waitForStatus(client, id, undefined, 30_000)).toMatchObject({
        status: "COMPLETED",
        output: 21,
        steps: { apply: { status: "COMPLETED", attempts: 2 } },
      });
    } finally {
      await client.close();
      await Promise.all(procs.map((p) => p.kill()));
    }
  });
});
