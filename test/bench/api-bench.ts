import type { NatsConnection } from "@nats-io/nats-core";
import { createApiKey } from "@wf/shared/auth";
import { newId } from "@wf/shared/execution";
import { connectNats } from "@wf/shared/nats";
import { openStore } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/shared/testing";
import { startServiceProcess, type ServiceProcess } from "../support/processes";
import { definitionOf } from "../support/runtime";
import { runLoad, type LoadResult } from "./api-load";
import { round } from "./stats";

export interface ApiBenchSizes {
  connections: number;
  warmupMs: number;
  durationMs: number;
}

export const API_BENCH_SIZES: ApiBenchSizes = { connections: 64, warmupMs: 2_000, durationMs: 10_000 };
export const API_BENCH_QUICK_SIZES: ApiBenchSizes = { connections: 64, warmupMs: 1_000, durationMs: 3_000 };

export interface ApiBenchResult {
  sizes: ApiBenchSizes;
  bare: LoadResult;
  api: LoadResult;
  /** Authenticated start throughput as a fraction of the bare route's. */
  throughputRatio: number;
  p50Ratio: number;
  p99Ratio: number;
}

const YAML = `
name: bench-api
variables:
  who: { type: string, required: true }
steps:
  - name: greet
    type: transform
    output: "hello {{ vars.who }}"
`;

const BODY = JSON.stringify({ inputs: { who: "bench" } });

/**
 * `POST /api/v1/workflows/{id}/executions` of a real edge process (key verified, both rate
 * windows counted in KV, inputs validated, PENDING snapshot written, start command published and
 * acknowledged) against a bare Fastify route in a process of its own, driven by the same load
 * tool at the same concurrency. No executor runs: this measures the edge. Each connection has
 * its own Enterprise key, as separate client systems would, so no quota is reached.
 */
export async function runApiBench(
  server: NatsServerHandle,
  sizes: ApiBenchSizes,
  opts: { progress?: (line: string) => void; track?: (close: () => Promise<void>) => () => void } = {},
): Promise<ApiBenchResult> {
  const progress = opts.progress ?? (() => undefined);
  const track = opts.track ?? (() => () => undefined);
  const ns = `api${newId().slice(-10)}`;
  const env = { NATS_URL: server.url, WF_NAMESPACE: ns, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" };
  const processes: ServiceProcess[] = [];
  const untrack = track(async () => {
    for (const p of processes) await p.kill();
  });
  let nc: NatsConnection | undefined;
  try {
    processes.push(await startServiceProcess("test/bench/api-bare-server.ts", {}, ["bare listening"]));
    processes.push(await startServiceProcess("services/edge/src/main.ts", env, ["edge listening"]));
    const [bareUrl, edgeUrl] = processes.map((p) => /"address":"([^"]+)"/.exec(p.output())![1]!);

    nc = await connectNats(server.url, "wf-bench-api");
    const { workflowId, keys } = await seed(nc, ns, sizes.connections);

    progress(`api: bare Fastify route, ${sizes.connections} connections, ${sizes.durationMs / 1000} s`);
    const bare = await runLoad({ url: `${bareUrl}/bare/executions`, headers: () => ({}), body: BODY }, sizes);
    progress(`api: authenticated POST /api/v1/workflows/{id}/executions, ${sizes.connections} connections, ${sizes.durationMs / 1000} s`);
    const api = await runLoad(
      { url: `${edgeUrl}/api/v1/workflows/${workflowId}/executions`, headers: (i) => ({ authorization: `Bearer ${keys[i % keys.length]}` }), body: BODY },
      sizes,
    );
    return {
      sizes,
      bare,
      api,
      throughputRatio: round(api.perSec / bare.perSec, 3),
      p50Ratio: round(api.latencyMs.p50 / bare.latencyMs.p50, 2),
      p99Ratio: round(api.latencyMs.p99 / bare.latencyMs.p99, 2),
    };
  } finally {
    await nc?.close();
    untrack();
    for (const p of processes) await p.kill();
  }
}

/** An Enterprise user, one key per connection, and the workflow to start. */
async function seed(nc: NatsConnection, ns: string, connections: number): Promise<{ workflowId: string; keys: string[] }> {
  const store = await openStore({ kind: "kv", nc, namespace: ns });
  const now = Date.now();
  const userId = newId();
  await store.users.create({ id: userId, email: `${userId}@bench.example`, passwordHash: "scrypt$unused", plan: "enterprise", status: "active", createdAt: now, updatedAt: now });
  const definition = definitionOf(YAML);
  const workflowId = newId();
  await store.workflows.create({ id: workflowId, name: definition.name, ownerId: userId, yaml: YAML, definition, version: 1, sharedWith: {}, createdAt: now, updatedAt: now });
  const keys = await Promise.all(
    Array.from({ length: connections }, async () => (await createApiKey(store, { ownerId: userId, scopes: ["WORKFLOW_EXECUTE"] })).key),
  );
  return { workflowId, keys };
}

const statusText = (r: LoadResult): string =>
  Object.entries(r.statuses)
    .map(([status, n]) => `${status === "0" ? "failed" : status} x${n}`)
    .join(", ");

export function renderApiBench(r: ApiBenchResult): string {
  const row = (name: string, x: LoadResult) =>
    `  ${name.padEnd(44)} ${`${x.perSec.toLocaleString("en-US")}/s`.padStart(9)}  p50 ${x.latencyMs.p50.toFixed(2).padStart(6)} ms  p99 ${x.latencyMs.p99.toFixed(2).padStart(6)} ms  (${statusText(x)})`;
  return [
    `API start throughput (${r.sizes.connections} keep-alive connections, ${r.sizes.durationMs / 1000} s each after ${r.sizes.warmupMs / 1000} s warm-up, same load tool)`,
    row("bare Fastify route, 202 JSON", r.bare),
    row("POST /api/v1/workflows/{id}/executions", r.api),
    `  authenticated start / bare: throughput ${r.throughputRatio}, p50 ${r.p50Ratio}x, p99 ${r.p99Ratio}x`,
  ].join("\n");
}
