import type { NatsConnection } from "@nats-io/nats-core";
import { createApiKey } from "@wf/shared/auth";
import { connectNats } from "@wf/shared/nats";
import { openStore } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/testing";
import { runLoad, type LoadResult } from "./api-load";
import { ratiosToBare, seedEnterpriseWorkflow, startEdgeTargets } from "./edge-targets";

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
 * windows counted in KV, inputs validated, PENDING execution listed and its start command
 * acknowledged) against a bare Fastify route in a process of its own, driven by the same load
 * tool at the same concurrency. No executor runs: this measures the edge. Each connection has
 * its own Enterprise key, as separate client systems would, so no quota is reached.
 */
export async function runApiBench(
  server: NatsServerHandle,
  sizes: ApiBenchSizes,
  opts: {
    progress?: (line: string) => void;
    track?: (close: () => Promise<void>) => () => void;
    edgeEnv?: Record<string, string>;
  } = {},
): Promise<ApiBenchResult> {
  const progress = opts.progress ?? (() => undefined);
  const targets = await startEdgeTargets(server, "api", opts.track ?? (() => () => undefined), opts.edgeEnv);
  let nc: NatsConnection | undefined;
  try {
    nc = await connectNats(server.url, "wf-bench-api");
    const { workflowId, keys } = await seed(nc, targets.ns, sizes.connections);

    progress(`api: bare Fastify route, ${sizes.connections} connections, ${sizes.durationMs / 1000} s`);
    const bare = await runLoad({ url: `${targets.bareUrl}/bare/executions`, headers: () => ({}), body: BODY }, sizes);
    progress(
      `api: authenticated POST /api/v1/workflows/{id}/executions, ${sizes.connections} connections, ${sizes.durationMs / 1000} s`,
    );
    const api = await runLoad(
      {
        url: `${targets.edgeUrl}/api/v1/workflows/${workflowId}/executions`,
        headers: (i) => ({ authorization: `Bearer ${keys[i % keys.length]}` }),
        body: BODY,
      },
      sizes,
    );
    return { sizes, bare, api, ...ratiosToBare(api, bare) };
  } finally {
    await nc?.close();
    await targets.stop();
  }
}

/** An Enterprise user, one key per connection, and the workflow to start. */
async function seed(
  nc: NatsConnection,
  ns: string,
  connections: number,
): Promise<{ workflowId: string; keys: string[] }> {
  const store = await openStore({ kind: "kv", nc, namespace: ns });
  const { userId, workflow } = await seedEnterpriseWorkflow(store, YAML);
  const keys = await Promise.all(
    Array.from(
      { length: connections },
      async () => (await createApiKey(store, { ownerId: userId, scopes: ["WORKFLOW_EXECUTE"] })).key,
    ),
  );
  return { workflowId: workflow.id, keys };
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
