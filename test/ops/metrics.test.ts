import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { createApiKey, SCOPES } from "@wf/shared/auth";
import { ENV_SCHEMA } from "@wf/shared/config";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { newWorkflowRecord, type WorkflowRecord } from "@wf/shared/store";
import { testUser } from "@wf/testing";
import { LlmTestServer } from "../ai/support/llm-server";
import { ENTRIES, opsBase, startServiceProcess, type ServiceProcess } from "../support/processes";
import {
  definitionOf,
  run,
  startRuntime,
  testConfig,
  uniqueNamespace,
  waitFor,
  waitForStatus,
} from "../support/runtime";
import { readyz, scrape, THIS_NODE, valueOf } from "./support";
import { useNatsServer } from "@wf/testing/nats-connection";

/**
 * What `/metrics` of the service as `npm start` runs it (one process, the executor in a thread
 * of its own) says after work done through the API: the counts are exactly the work's.
 */
const nats = useNatsServer();

const METERED = `
name: metered
steps:
  - name: double
    type: code
    language: javascript
    code: |
      return 2 * 21;
  - { name: pause, type: wait, seconds: 1 }
  - { name: done, type: transform, output: "{{ steps.double.output }}" }
`;

const LINGERING = `
name: lingering
steps:
  - { name: pause, type: wait, seconds: 4 }
`;

interface Service {
  proc: ServiceProcess;
  ops: string;
  edge: string;
  client: Platform;
  key: string;
  workflow(yaml: string): Promise<WorkflowRecord>;
  start(workflowId: string): Promise<string>;
  status(executionId: string): Promise<string>;
}

/** The all-in-one service on a namespace of its own, with an account and key made in its store. */
async function startService(env: Record<string, string> = {}): Promise<Service> {
  const ns = uniqueNamespace();
  const proc = await startServiceProcess(
    ENTRIES.allInOne,
    { NATS_URL: nats.server.url, WF_NAMESPACE: ns, PORT: "0", ...env },
    ["[wf] ready"],
  );
  const edge = /\[wf\] ready: edge on (http:\/\/[^\s,]+)/.exec(proc.output())![1]!;
  const client = await openPlatform(testConfig(nats.server, { WF_NAMESPACE: ns }), "test-client");
  const user = testUser();
  await client.store.users.create(user);
  const { key } = await createApiKey(client.store, { ownerId: user.id, scopes: [...SCOPES] });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(edge + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return {
    proc,
    ops: opsBase(proc),
    edge,
    client,
    key,
    async workflow(yaml) {
      const wf = newWorkflowRecord({ ownerId: user.id, yaml, definition: definitionOf(yaml) });
      await client.store.workflows.create(wf);
      return wf;
    },
    async start(workflowId) {
      const r = await call("POST", `/api/v1/workflows/${workflowId}/executions`, {});
      expect(r.status).toBe(202);
      return r.body.executionId as string;
    },
    async status(executionId) {
      return (await call("GET", `/api/v1/executions/${executionId}`)).body.status as string;
    },
  };
}

describe("/metrics of the all-in-one service", () => {
  it("counts the executions, steps, requests and timers of workflows run through the API", async () => {
    // Waits park, so that their timers are what wakes them.
    const svc = await startService({
      WF_HOLD_WAIT_MS: "0",
      WF_EXECUTOR_NICE: ENV_SCHEMA.WF_EXECUTOR_NICE.default,
      // The production default, which the tests' one runner (test/support/sandbox-pool.ts) is not.
      WF_SANDBOX_POOL: ENV_SCHEMA.WF_SANDBOX_POOL.default,
    });
    try {
      const wf = await svc.workflow(METERED);
      const ids = [await svc.start(wf.id), await svc.start(wf.id), await svc.start(wf.id)];
      for (const id of ids)
        await waitFor(async () => (await svc.status(id)) === "COMPLETED", {
          timeoutMs: 30_000,
          what: `execution ${id} to complete`,
        });

      const samples = await waitFor(async () => {
        // The last end is counted once its write is made, a moment after the status shows.
        const s = await scrape(svc.ops);
        return valueOf(s, "wf_executions_finished_total", { source: "open_api", status: "COMPLETED" }) === 3
          ? s
          : undefined;
      });
      expect(valueOf(samples, "wf_executions_started_total", { source: "open_api" })).toBe(3);
      expect(samples.filter((s) => s.name === "wf_executions_started_total")).toHaveLength(1);
      expect(samples.filter((s) => s.name === "wf_executions_finished_total")).toHaveLength(1);
      for (const type of ["code", "wait", "transform"]) {
        expect(valueOf(samples, "wf_step_duration_seconds_count", { type, status: "COMPLETED" }), type).toBe(3);
      }
      // A parked wait of 1 s lasts at least that.
      expect(
        valueOf(samples, "wf_step_duration_seconds_bucket", { type: "wait", status: "COMPLETED", le: "0.5" }),
      ).toBe(0);
      expect(
        valueOf(samples, "wf_http_request_duration_seconds_count", {
          method: "POST",
          route: "/api/v1/workflows/:id/executions",
          status_code: "202",
        }),
      ).toBe(3);
      expect(
        valueOf(samples, "wf_http_request_duration_seconds_count", {
          method: "GET",
          route: "/api/v1/executions/:id",
          status_code: "200",
        }),
      ).toBeGreaterThanOrEqual(3);
      expect(
        samples.some((s) => s.name.startsWith("wf_http_request_duration_seconds") && s.labels.route?.includes(ids[0]!)),
      ).toBe(false);
      // Each wait arms one timer, which fires once.
      expect(valueOf(samples, "wf_timer_lateness_seconds_count", { kind: "exec" })).toBe(3);
      expect(valueOf(samples, "wf_sandbox_runners")).toBe(2);
      expect(valueOf(samples, "wf_sandbox_runs_in_flight")).toBe(0);
      const ns = svc.client.config.WF_NAMESPACE;
      expect(valueOf(samples, "wf_consumer_pending_messages", { stream: `${ns}_CMD`, consumer: "executor" })).toBe(0);
      expect(valueOf(samples, "wf_consumer_pending_messages", { stream: `${ns}_TIMER`, consumer: "timers" })).toBe(0);
      // The process's own metrics, once: the thread adds none.
      expect(samples.filter((s) => s.name === "process_start_time_seconds")).toHaveLength(1);
      expect(valueOf(samples, "nodejs_version_info", THIS_NODE)).toBe(1);

      const ready = await readyz(svc.ops);
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toMatchObject({
        nats: "ok",
        consumers: "ok",
        "executor thread: nats": "ok",
        "executor thread: consumers": "ok",
      });

      // The executor thread and the code runners it forked yield the CPU to the edge (WF_EXECUTOR_NICE's default; the
      // suite's other processes run at 0), and are scheduled as batch work (WF_EXECUTOR_BATCH), the edge's thread not.
      const threads = await threadScheduling(svc.proc.pid);
      expect(threads.get(svc.proc.pid)).toEqual({ nice: 0, policy: SCHED_OTHER });
      expect([...threads.values()]).toContainEqual({ nice: 10, policy: SCHED_BATCH });
      const runners = await childrenOf(svc.proc.pid);
      expect(runners.length).toBeGreaterThan(0);
      // Each child named, so that a failure shows what it was; one that exited since it was listed is left out.
      const children = await Promise.all(
        runners.map(async (pid) => {
          const command = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => null);
          const scheduling = await threadScheduling(pid).catch(() => null);
          return command === null || scheduling === null
            ? null
            : { pid, command: command.slice(0, 300), ...scheduling.get(pid) };
        }),
      );
      expect(children.some((c) => c !== null)).toBe(true);
      expect(children.filter((c) => c !== null && (c.nice !== 10 || c.policy !== SCHED_BATCH))).toEqual([]);
    } finally {
      await svc.client.close();
      await svc.proc.stop();
    }
  });

  it("answers /readyz 503 from the moment a stop begins, while work in hand finishes", async () => {
    const svc = await startService();
    try {
      const wf = await svc.workflow(LINGERING);
      const id = await svc.start(wf.id);
      await waitFor(async () => (await svc.status(id)) === "RUNNING", { what: "the wait to begin" });
      expect((await readyz(svc.ops)).status).toBe(200);
      const stopped = svc.proc.stop();
      const stopping = await waitFor(
        async () => {
          const r = await readyz(svc.ops);
          return r.status === 503 ? r : undefined;
        },
        { intervalMs: 10, what: "/readyz to say the service is stopping" },
      );
      expect(stopping.body).toEqual({ status: "not ready", checks: { process: "stopping" } });
      expect((await fetch(`${svc.ops}/healthz`)).status).toBe(200);
      expect((await stopped).code).toBe(0);
    } finally {
      await svc.client.close();
      await svc.proc.stop();
    }
  });
});

describe("/metrics of an executor process", () => {
  it("counts the tokens and cost of LLM calls by provider and model, as the provider reported them", async () => {
    const openai = await LlmTestServer.start("openai");
    const ns = uniqueNamespace();
    const executor = await startServiceProcess(
      ENTRIES.executor,
      {
        NATS_URL: nats.server.url,
        WF_NAMESPACE: ns,
        WF_LLM_PROVIDERS: JSON.stringify([
          { name: "metered-openai", protocol: "openai", baseUrl: openai.baseUrl, apiKey: "sk-metered-0001" },
        ]),
        WF_LLM_PRICES: JSON.stringify({ "gpt-metered": { input: 2, output: 6 } }),
      },
      ["executor ready"],
    );
    const client = await startRuntime(testConfig(nats.server, { WF_NAMESPACE: ns }), {
      executor: false,
      scheduler: false,
      approvals: false,
    });
    try {
      openai.script(
        "gpt-metered",
        { text: "one", usage: { prompt: 31, completion: 9 } },
        { text: "two", usage: { prompt: 40, completion: 1 } },
      );
      const id = await run(
        client.platform,
        `
name: metered-llm
steps:
  - { name: first, type: llm, model: gpt-metered, prompt: "one?" }
  - { name: second, type: llm, model: gpt-metered, prompt: "two?" }
`,
      );
      expect((await waitForStatus(client.platform, id)).status).toBe("COMPLETED");
      const samples = await scrape(opsBase(executor));
      const labels = { provider: "metered-openai", model: "gpt-metered" };
      expect(valueOf(samples, "wf_llm_tokens_total", { ...labels, type: "input" })).toBe(31 + 40);
      expect(valueOf(samples, "wf_llm_tokens_total", { ...labels, type: "output" })).toBe(9 + 1);
      expect(valueOf(samples, "wf_llm_cost_usd_total", labels)).toBeCloseTo(
        ((31 + 40) * 2 + (9 + 1) * 6) / 1_000_000,
        12,
      );
      expect(valueOf(samples, "wf_step_duration_seconds_count", { type: "llm", status: "COMPLETED" })).toBe(2);
      expect(valueOf(samples, "wf_executions_started_total", { source: "console" })).toBe(1);
      // An executor process runs as batch work too (WF_EXECUTOR_BATCH), at the nice value it was started with.
      expect((await threadScheduling(executor.pid)).get(executor.pid)).toEqual({ nice: 0, policy: SCHED_BATCH });
    } finally {
      await client.stop();
      await executor.stop();
      await openai.close();
    }
  });
});

/**
 * `/proc/<pid>/stat`'s fields after the command's closing parenthesis: state is the first, ppid the second, nice the
 * 17th, policy the 39th.
 */
async function statFields(path: string): Promise<string[]> {
  const stat = await readFile(path, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Linux's scheduling policies, as /proc/<pid>/stat numbers them. */
const SCHED_OTHER = 0;
const SCHED_BATCH = 3;

/** The nice value and scheduling policy of each thread of a process, by thread id. */
async function threadScheduling(pid: number): Promise<Map<number, { nice: number; policy: number }>> {
  const tids = await readdir(`/proc/${pid}/task`);
  return new Map(
    await Promise.all(
      tids.map(async (tid) => {
        const f = await statFields(`/proc/${pid}/task/${tid}/stat`);
        return [Number(tid), { nice: Number(f[16]), policy: Number(f[38]) }] as const;
      }),
    ),
  );
}

async function childrenOf(parent: number): Promise<number[]> {
  const pids = (await readdir("/proc")).filter((d) => /^\d+$/.test(d)).map(Number);
  const parents = await Promise.all(
    pids.map((pid) =>
      statFields(`/proc/${pid}/stat`).then(
        (f) => Number(f[1]),
        () => -1,
      ),
    ),
  );
  return pids.filter((_, i) => parents[i] === parent);
}
