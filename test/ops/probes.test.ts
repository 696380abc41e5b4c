import { ENV_SCHEMA } from "@wf/shared/config";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsServerHandle } from "@wf/testing";
import { ENTRIES, opsBase, startServiceProcess, type ServiceProcess } from "../support/processes";
import { startNatsServer, uniqueNamespace, waitFor } from "../support/runtime";
import { readyz, scrape, THIS_NODE, valueOf, type Readiness } from "./support";

/**
 * The ops listener of each service process, as an orchestrator probes it: started as in
 * production, each on a free port (WF_OPS_PORT=0) found in its log.
 */
let server: NatsServerHandle;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

function edgeAddress(edge: ServiceProcess): string {
  const m = /"msg":"edge listening".*?"address":"([^"]+)"/.exec(edge.output());
  if (!m) throw new Error(`no edge address in:\n${edge.output()}`);
  return m[1]!;
}

async function waitForReadiness(
  base: string,
  status: 200 | 503,
  what: string,
  timeoutMs = 20_000,
  until: (r: Readiness) => boolean = () => true,
): Promise<Readiness> {
  return waitFor(
    async () => {
      const r = await readyz(base);
      return r.status === status && until(r) ? r : undefined;
    },
    { timeoutMs, intervalMs: 100, what: `${what} to answer /readyz ${status}` },
  );
}

async function typesOf(base: string): Promise<Set<string>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
}

describe("the ops listener of every service process", () => {
  it("is alive, ready once started, not ready while NATS is down and ready again when it is back", async () => {
    const ns = uniqueNamespace();
    // The production default of runners, which the tests' one (test/support/sandbox-pool.ts) is not.
    const env = {
      NATS_URL: server.url,
      WF_NAMESPACE: ns,
      PORT: "0",
      WF_SANDBOX_POOL: ENV_SCHEMA.WF_SANDBOX_POOL.default,
    };
    const dir = await mkdtemp(join(tmpdir(), "wf-ops-"));
    const procs = await Promise.all([
      startServiceProcess(ENTRIES.edge, env, ["edge listening"]),
      startServiceProcess(ENTRIES.executor, env, ["executor ready"]),
      startServiceProcess(ENTRIES.approvals, env, ["approvals ready"]),
      startServiceProcess(ENTRIES.scheduler, env, ["scheduler ready"]),
      startServiceProcess(ENTRIES.sandbox, { WF_SANDBOX_SOCKET: join(dir, "sandbox.sock") }, ["ready on"]),
    ]);
    try {
      const [edge, executor, approvals, scheduler, sandbox] = procs.map(opsBase) as [
        string,
        string,
        string,
        string,
        string,
      ];
      const onNats = { edge, executor, approvals, scheduler };
      const edgePort = edgeAddress(procs[0]!);
      for (const base of [...Object.values(onNats), sandbox])
        expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: "ok" });

      for (const [name, base] of Object.entries(onNats)) {
        const { body } = await waitForReadiness(base, 200, name);
        const consumers = name === "edge" ? {} : { consumers: "ok" };
        expect(body, name).toEqual({ status: "ready", checks: { nats: "ok", streams: "ok", ...consumers } });
      }
      expect((await waitForReadiness(sandbox, 200, "the sandbox")).body).toEqual({ status: "ready", checks: {} });
      expect((await readyz(edgePort)).status).toBe(200);

      // Each process shows its own metrics, and Node's, and no other service's.
      const types = Object.fromEntries(
        await Promise.all(Object.entries({ ...onNats, sandbox }).map(async ([n, b]) => [n, await typesOf(b)] as const)),
      );
      for (const t of Object.values(types)) expect(t).toContain("process_cpu_seconds_total");
      expect(types.edge).toContain("wf_http_request_duration_seconds");
      expect(types.edge).not.toContain("wf_executions_started_total");
      expect(types.executor).toContain("wf_executions_started_total");
      expect(types.executor).toContain("wf_step_duration_seconds");
      expect(types.scheduler).toContain("wf_timer_lateness_seconds");
      expect(types.sandbox).not.toContain("wf_consumer_pending_messages");
      expect(valueOf(await scrape(executor), "wf_sandbox_runners")).toBe(2);
      const approvalsSamples = await scrape(approvals);
      expect(
        valueOf(approvalsSamples, "wf_consumer_pending_messages", { stream: `${ns}_CMD`, consumer: "approvals" }),
      ).toBe(0);
      const timers = await scrape(scheduler);
      expect(valueOf(timers, "wf_consumer_ack_pending_messages", { stream: `${ns}_TIMER`, consumer: "timers" })).toBe(
        0,
      );

      await server.kill();
      for (const [name, base] of Object.entries(onNats)) {
        // A check of the streams can fail before the client has seen its connection go: 503 with NATS still "ok".
        await waitForReadiness(base, 503, `${name} without NATS, saying it is disconnected`, 10_000, (r) =>
          /disconnected/.test(r.body.checks.nats ?? ""),
        );
      }
      expect((await readyz(edgePort)).status).toBe(503);
      expect((await readyz(sandbox)).status).toBe(200);
      for (const base of Object.values(onNats)) expect((await fetch(`${base}/healthz`)).status).toBe(200);

      await server.start();
      for (const [name, base] of Object.entries(onNats))
        await waitForReadiness(base, 200, `${name} with NATS back`, 30_000);
      expect((await readyz(edgePort)).status).toBe(200);
    } finally {
      await Promise.all(procs.map((p) => p.stop()));
      await rm(dir, { recursive: true, force: true });
      // The next test's server, should this one have failed while it was down.
      await server.start();
    }
  });

  it("of several edge processes is the supervisor's: ready when each is, their requests counted together", async () => {
    const ns = uniqueNamespace();
    const edge = await startServiceProcess(
      ENTRIES.edge,
      { NATS_URL: server.url, WF_NAMESPACE: ns, PORT: "0", WF_EDGE_PROCESSES: "2" },
      ["edge listening"],
    );
    try {
      await waitFor(() => edge.output().split('"msg":"edge listening"').length === 3, {
        what: "both edge processes to listen",
      });
      const base = opsBase(edge);
      expect(edge.output().match(/"msg":"ops listening"/g)).toHaveLength(1);
      const { body } = await waitForReadiness(base, 200, "the edge processes");
      const processes = new Set(Object.keys(body.checks).map((check) => check.split(":")[0]));
      expect([...processes]).toHaveLength(2);
      expect(Object.values(body.checks).every((v) => v === "ok")).toBe(true);

      const address = edgeAddress(edge);
      for (let i = 0; i < 6; i++)
        expect((await fetch(`${address}/healthz`, { headers: { connection: "close" } })).status).toBe(200);
      const samples = await scrape(base);
      expect(
        valueOf(samples, "wf_http_request_duration_seconds_count", {
          method: "GET",
          route: "/healthz",
          status_code: "200",
        }),
      ).toBe(6);
      expect(valueOf(samples, "nodejs_version_info", THIS_NODE)).toBe(1);
    } finally {
      expect((await edge.stop()).code).toBe(0);
    }
  });
});
