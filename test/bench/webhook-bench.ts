import { createHmac } from "node:crypto";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { newId } from "@wf/shared/execution";
import { connectNats } from "@wf/shared/nats";
import { openStore, type Store } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/shared/testing";
import { SecretBox } from "../../services/edge/src/webhooks/secret-box";
import type { ApiBenchSizes } from "./api-bench";
import { runLoad, type LoadResult } from "./api-load";
import { PUBLISHED } from "./published";
import { ratiosToBare, seedEnterpriseWorkflow, startEdgeTargets } from "./edge-targets";
import { round } from "./stats";

/** Same load tool and concurrency as the API bench; BENCH_QUICK keeps the whole part near 5 s. */
export const WEBHOOK_BENCH_SIZES: ApiBenchSizes = { connections: 64, warmupMs: 2_000, durationMs: 10_000 };
export const WEBHOOK_BENCH_QUICK_SIZES: ApiBenchSizes = { connections: 64, warmupMs: 500, durationMs: 2_000 };

export const WEBHOOK_AIM = { perSec: 5_000, p99Ms: 20 } as const;

export interface WebhookBenchResult {
  sizes: ApiBenchSizes;
  bare: LoadResult;
  webhook: LoadResult;
  /** Webhooks triggered (one per connection, HMAC mode, one Enterprise owner). */
  webhooks: number;
  throughputRatio: number;
  p50Ratio: number;
  p99Ratio: number;
  /** Every answer of the webhook run, warm-up included, and the executions the store holds afterwards. */
  accepted: number;
  rateLimited: number;
  otherAnswers: number;
  executionsStored: number;
  nothingLost: boolean;
  aimMet: boolean;
}

const SECRET = "bench webhook secret, 32+ characters long";

const YAML = `
name: bench-webhook
variables:
  who: { type: string, default: world }
steps:
  - name: greet
    type: transform
    output: "hello {{ vars.who }}"
`;

const BODY = JSON.stringify({ who: "bench", event: "push", n: 1 });
const SIGNATURE = `sha256=${createHmac("sha256", SECRET).update(BODY).digest("hex")}`;

/**
 * `POST /api/webhooks/{id}/trigger` of a real edge process (webhook read, HMAC verified, owner
 * and workflow read, rate window counted in KV, PENDING snapshot written, start command acked by
 * JetStream) next to the bare Fastify route, in processes of their own, driven by the same load
 * tool at the same concurrency (keep-alive, one request in flight per connection, no pipelining).
 * No executor runs: executions stay PENDING, and afterwards the executions bucket must hold one
 * execution per 202. An HMAC or open trigger counts against its owner's plan keyed by the webhook
 * (decisions.md), so each connection triggers a webhook of its own, as separate senders would:
 * Enterprise allows 6,000 per minute each. 429s are counted apart, never hidden.
 */
export async function runWebhookBench(
  server: NatsServerHandle,
  sizes: ApiBenchSizes,
  opts: { progress?: (line: string) => void; track?: (close: () => Promise<void>) => () => void; edgeEnv?: Record<string, string> } = {},
): Promise<WebhookBenchResult> {
  const progress = opts.progress ?? (() => undefined);
  const targets = await startEdgeTargets(server, "wh", opts.track ?? (() => () => undefined), opts.edgeEnv);
  const { ns, bareUrl, edgeUrl } = targets;
  let nc: NatsConnection | undefined;
  try {
    nc = await connectNats(server.url, "wf-bench-webhook");
    const store = await openStore({ kind: "kv", nc, namespace: ns });
    // The edge started first, so this reads the key it created in `<ns>_edge`.
    const box = await SecretBox.open(nc, ns, undefined);
    const webhookIds = await seed(store, box, sizes.connections);

    progress(`webhook: bare Fastify route, ${sizes.connections} connections, ${sizes.durationMs / 1000} s`);
    const bare = await runLoad({ url: `${bareUrl}/bare/executions`, headers: () => ({}), body: BODY }, sizes);
    progress(`webhook: POST /api/webhooks/{id}/trigger (HMAC), ${sizes.connections} connections, ${sizes.durationMs / 1000} s`);
    const webhook = await runLoad(
      {
        url: edgeUrl,
        path: (i) => `/api/webhooks/${webhookIds[i % webhookIds.length]}/trigger`,
        headers: () => ({ "x-webhook-signature": SIGNATURE }),
        body: BODY,
      },
      sizes,
    );
    const executionsStored = await countKeys(nc, `${ns}_executions`);
    const accepted = webhook.allStatuses["202"] ?? 0;
    const rateLimited = webhook.allStatuses["429"] ?? 0;
    const otherAnswers = Object.entries(webhook.allStatuses).reduce((n, [status, k]) => (status === "202" || status === "429" ? n : n + k), 0);
    return {
      sizes,
      bare,
      webhook,
      webhooks: webhookIds.length,
      ...ratiosToBare(webhook, bare),
      accepted,
      rateLimited,
      otherAnswers,
      executionsStored,
      nothingLost: executionsStored === accepted,
      aimMet: webhook.perSec >= WEBHOOK_AIM.perSec && webhook.latencyMs.p99 < WEBHOOK_AIM.p99Ms,
    };
  } finally {
    await nc?.close();
    await targets.stop();
  }
}

/** An Enterprise owner, the workflow, and `n` HMAC webhooks of it (secret sealed by the edge's key). */
async function seed(store: Store, box: SecretBox, n: number): Promise<string[]> {
  const now = Date.now();
  const { userId, workflowId } = await seedEnterpriseWorkflow(store, YAML);
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const id = newId();
      await store.webhooks.create({
        id,
        ownerId: userId,
        workflowId,
        name: `bench-${i}`,
        mode: "hmac",
        apiKeyId: null,
        secretKey: box.seal(SECRET, id),
        variableMapping: null,
        allowedSourceIps: [],
        enabled: true,
        replayProtection: false,
        createdAt: now,
        updatedAt: now,
      });
      return id;
    }),
  );
}

/** Live keys of a KV bucket (deleted and purged ones are not listed). */
async function countKeys(nc: NatsConnection, bucket: string): Promise<number> {
  const kv = await new Kvm(nc).open(bucket);
  let n = 0;
  for await (const key of await kv.keys()) if (key) n++;
  return n;
}

const statusText = (statuses: Record<string, number>): string =>
  Object.entries(statuses)
    .map(([status, n]) => `${status === "0" ? "failed" : status} x${n}`)
    .join(", ");

export function renderWebhookBench(r: WebhookBenchResult): string {
  const row = (name: string, x: LoadResult) =>
    `  ${name.padEnd(44)} ${`${x.perSec.toLocaleString("en-US")}/s`.padStart(9)}  p50 ${x.latencyMs.p50.toFixed(2).padStart(6)} ms  p99 ${x.latencyMs.p99.toFixed(2).padStart(6)} ms  (${statusText(x.statuses)})`;
  const n8n = PUBLISHED.ingestContext.perSec["n8n single instance"];
  return [
    `Webhook ingestion (${r.sizes.connections} keep-alive connections, no pipelining, ${r.sizes.durationMs / 1000} s each after ${r.sizes.warmupMs / 1000} s warm-up, same load tool; ` +
      `${r.webhooks} HMAC webhooks of one Enterprise owner, one per connection; no executor runs, executions stay PENDING)`,
    row("bare Fastify route, 202 JSON", r.bare),
    row("POST /api/webhooks/{id}/trigger (HMAC)", r.webhook),
    `  webhook trigger / bare: throughput ${r.throughputRatio}, p50 ${r.p50Ratio}x, p99 ${r.p99Ratio}x; published context: n8n ${n8n}/s on 2 vCPU (ours / n8n ${round(r.webhook.perSec / n8n, 1)})`,
    `  answers incl. warm-up: 202 x${r.accepted}, 429 x${r.rateLimited}, other x${r.otherAnswers} (${statusText(r.webhook.allStatuses)})`,
    `  executions in the store afterwards: ${r.executionsStored}; 202 answers: ${r.accepted} -> ${r.nothingLost ? "NOTHING LOST" : `MISMATCH (${r.executionsStored - r.accepted})`}`,
    `  aim >= ${WEBHOOK_AIM.perSec.toLocaleString("en-US")} triggers/s with p99 < ${WEBHOOK_AIM.p99Ms} ms: ${r.aimMet ? "MET" : "NOT MET"} ` +
      `(${r.webhook.perSec.toLocaleString("en-US")}/s, p99 ${r.webhook.latencyMs.p99.toFixed(2)} ms)`,
  ].join("\n");
}
