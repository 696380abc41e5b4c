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

/** Three branches, each a code step `x<n>` (after_step on each) and a transform `y<n>` reading its output. */
const THREE_BRANCHES = `
  name: three-branches
  steps:
    - name: par
      type: parallel
      branches:
${[1, 2, 3]
  .map(
    (n) => `        b${n}:
          - { name: x${n}, type: code, language: javascript, input: { n: ${n} }, code: "return input.n" }
          - { name: y${n}, type: transform, output: "{{ steps.x${n}.output + 1 }}" }`,
  )
  .join("\n")}
    - { name: sum, type: transform, output: "{{ steps.y1.output + steps.y2.output + steps.y3.output }}" }
`;

/** The execution once parked at a pause other than `after`. */
async function paused(p: Platform, id: string, after?: string): Promise<ExecutionSnapshot> {
  return waitFor(
    async () => {
      const s = (await p.store.executions.get(id))?.value;
      return s?.debug?.pause && s.debug.pause.id !== after && s.holder === null ? s : undefined;
    },
    { timeoutMs: 30_000, what: "the execution to pause" },
  );
}

describe("a debug pause outlives every process", () => {
  /** SIGKILL of every process and of nats-server, then all started again; the new client. */
  async function crash(ns: string, client: Platform, procs: ServiceProcess[]): Promise<[Platform, ServiceProcess[]]> {
    await client.close();
    await Promise.all(procs.map((p) => p.kill()));
    await server.kill();
    await server.start();
    const started = await startServices(ns);
    return [await openPlatform(testConfig(server, { WF_NAMESPACE: ns }), "test-client"), started];
  }

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

      [client, procs] = await crash(ns, client, procs);

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
  it("branches waiting after their steps behind a pause, after SIGKILL of everything, still pause there in turn, no step run again", async () => {
    const ns = `crashdbg${newId().slice(-8)}`;
    let client: Platform = await openPlatform(testConfig(server, { WF_NAMESPACE: ns }), "test-client");
    let procs = await startServices(ns);
    try {
      const id = await run(client, THREE_BRANCHES, {
        debug: DebugRequest.parse({ breakpoints: [1, 2, 3].map((n) => ({ type: "after_step", step: `x${n}` })) }),
      });
      const before = await paused(client, id);
      const first = before.debug!.pause!;
      // The three code steps completed; the two not paused at wait after themselves for their breakpoints.
      expect([1, 2, 3].map((n) => [before.steps[`x${n}`]?.status, before.steps[`y${n}`]])).toEqual(
        Array(3).fill(["COMPLETED", undefined]),
      );
      const completedAt = [1, 2, 3].map((n) => before.steps[`x${n}`]!.completedAt);
      // The order they pause in after the crash too: the one paused at, then those waiting in the order they came.
      const order = [first.stepPath, ...before.debug!.waiting.map((w) => w.stepPath)];
      expect(completedAt.every((at) => at !== null)).toBe(true);

      [client, procs] = await crash(ns, client, procs);

      const points: string[] = [];
      let pause = (await paused(client, id)).debug!.pause!;
      expect(pause.id).toBe(first.id);
      for (;;) {
        expect(points.length, points.join(", ")).toBeLessThan(3);
        points.push(pause.stepPath);
        // 10 n in place of n: what y<n> reads.
        const n = Number(pause.stepPath.slice(1));
        for (const [command, body] of [
          ["set", { output: 10 * n }],
          ["continue", {}],
        ] as const) {
          const sent = await sendDebugCommand(client.js, client.store, ns, id, pause.id, { command, body, by: "ada" });
          expect(sent.ok).toBe(true);
        }
        const next = await waitFor(
          async () => {
            const s = (await client.store.executions.get(id))?.value;
            if (s?.status === "COMPLETED") return s;
            return s?.debug?.pause && s.debug.pause.id !== pause.id && s.holder === null ? s : undefined;
          },
          { timeoutMs: 30_000, what: "the next pause or the end" },
        );
        if (next.status === "COMPLETED") {
          expect(points).toEqual(order);
          expect(points.toSorted()).toEqual(["x1", "x2", "x3"]);
          // 11 + 21 + 31; each code step completed once, before the crash.
          expect(next.output).toBe(63);
          expect([1, 2, 3].map((n) => next.steps[`x${n}`]!.completedAt)).toEqual(completedAt);
          expect([1, 2, 3].map((n) => next.steps[`x${n}`]!.attempts)).toEqual([1, 1, 1]);
          break;
        }
        pause = next.debug!.pause!;
      }
    } finally {
      await client.close();
      await Promise.all(procs.map((p) => p.kill()));
    }
  });
});
