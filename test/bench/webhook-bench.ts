import { createHmac } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { startExecution } from "@wf/shared/client";
import { newId } from "@wf/shared/execution";
import { connectNats, ensureStreams, ONE_REPLICA, streamNames } from "@wf/shared/nats";
import { JetStreamPublisher, openStore, type Store, type WorkflowRecord } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/testing";
import { loadConfig } from "@wf/shared/config";
import { SecretBox, serverKey } from "@wf/shared/secrets";
import type { ApiBenchSizes } from "./api-bench";
import { runAtRate, runLoad, runLoadAtRate, type LoadResult, type LoadTarget } from "./api-load";
import { processCpuMs, sampleCpu } from "./cpu";
import { PUBLISHED } from "./published";
import { ratiosToBare, seedEnterpriseWorkflow, startEdgeTargets } from "./edge-targets";
import { median, round } from "./stats";

/** Same load tool and concurrency as the API bench; BENCH_QUICK keeps the whole part near 5 s. */
export const WEBHOOK_BENCH_SIZES: ApiBenchSizes = { connections: 64, warmupMs: 2_000, durationMs: 10_000 };
export const WEBHOOK_BENCH_QUICK_SIZES: ApiBenchSizes = { connections: 64, warmupMs: 500, durationMs: 2_000 };

/**
 * The aim: 5,000 triggers/s answered with p99 under 20 ms, judged on an open-loop run at that
 * rate (runLoadAtRate), where the p99 is a latency at that rate. The closed-loop run beside it
 * finds the most the edge answers; its latency is the connections' queue (Little's law: 64
 * connections / rate), not a service latency.
 */
export const WEBHOOK_AIM = { perSec: 5_000, p99Ms: 20 } as const;
/** Share of the aim's rate an open-loop run must answer (or complete) for the aim to count as met. */
export const AIM_RATE_SHARE = 0.99;

/** The edge as one process (WF_EDGE_PROCESSES=1), then as one per core of this 2-core machine. */
export const WEBHOOK_EDGE_PROCESSES = [1, 2] as const;

/** The load on one edge, with its ratios to the bare route's. */
export interface WebhookEdgeRun {
  /** WF_EDGE_PROCESSES of this edge. */
  processes: number;
  /** Closed loop: as fast as the connections go. */
  load: LoadResult;
  /** Open loop at the aim's rate. */
  atAim: LoadResult;
  throughputRatio: number;
  p50Ratio: number;
  p99Ratio: number;
  /**
   * CPU ms per answer, warm-up included (null without /proc), of the edge's processes and of
   * nats-server: less swayed than req/s by other processes competing for the cores, and it
   * shows what one core can serve.
   */
  cpuMs: { edgePerTrigger: number | null; natsServerPerTrigger: number | null };
  aimMet: boolean;
}

export interface WebhookBenchResult {
  sizes: ApiBenchSizes;
  /** The open-loop runs' rate. */
  ratePerSec: number;
  bare: LoadResult;
  /** The bare route at the aim's rate, open loop. */
  bareAtAim: LoadResult;
  /** CPU ms of the bare route's process per request. */
  bareCpuMsPerRequest: number | null;
  /**
   * The store's own floor at the aim's rate: the trigger's two JetStream writes (the execution's
   * list key and its start command, sent together), made by startExecution from the bench
   * process, open loop, no HTTP.
   */
  storeAtAim: LoadResult;
  /**
   * The same rate of start commands alone: one JetStream write per request, what a trigger would cost that wrote
   * nothing else.
   */
  commandAtAim: LoadResult;
  /** One run per entry of WEBHOOK_EDGE_PROCESSES, each against its own edge. */
  runs: WebhookEdgeRun[];
  /** Webhooks each load run triggers (one per connection, HMAC mode, one Enterprise owner; a fresh set per run). */
  webhooks: number;
  /**
   * Every answer of the webhook runs, warm-up included, and what the store holds afterwards: the
   * executions it lists, and their start commands (an execution no executor took yet is read
   * from its command).
   */
  accepted: number;
  rateLimited: number;
  otherAnswers: number;
  executionsStored: number;
  startCommandsStored: number;
  nothingLost: boolean;
  /** Whether any run met the aim. */
  aimMet: boolean;
}

export const SECRET = "bench webhook secret, 32+ characters long";

const YAML = `
name: bench-webhook
variables:
  who: { type: string, default: world }
steps:
  - name: greet
    type: transform
    output: "hello {{ vars.who }}"
`;

export const BODY = JSON.stringify({ who: "bench", event: "push", n: 1 });
export const SIGNATURE = `sha256=${createHmac("sha256", SECRET).update(BODY).digest("hex")}`;

/**
 * `POST /api/webhooks/{id}/trigger` of a real edge process next to the bare Fastify route, in
 * processes of their own, driven by the same load tool at the same concurrency. No executor runs:
 * afterwards the executions bucket must hold one execution per 202. Each connection triggers a webhook
 * of its own, and each load run a set of its own, so that no plan's per-webhook limit is what is
 * measured; 429s are counted apart, never hidden (docs/operations.md#benchmarks).
 */
export async function runWebhookBench(
  server: NatsServerHandle,
  sizes: ApiBenchSizes,
  opts: {
    progress?: (line: string) => void;
    track?: (close: () => Promise<void>) => () => void;
    edgeEnv?: Record<string, string>;
    /** The open-loop runs' rate; the aim's unless a smoke test asks for less. */
    ratePerSec?: number;
  } = {},
): Promise<WebhookBenchResult> {
  const progress = opts.progress ?? (() => undefined);
  const targets = await startEdgeTargets(
    server,
    "wh",
    opts.track ?? (() => () => undefined),
    opts.edgeEnv,
    WEBHOOK_EDGE_PROCESSES,
  );
  const { ns, bareUrl, barePid, edges } = targets;
  let nc: NatsConnection | undefined;
  try {
    nc = await connectNats(server.url, "wf-bench-webhook");
    const store = await openStore({ kind: "kv", nc, namespace: ns });
    // The edges' key, found as they find it (keys.json of the default WF_DATA_DIR).
    const box = new SecretBox(
      await serverKey("webhookSecrets", { nc, config: loadConfig({ NATS_URL: server.url, WF_NAMESPACE: ns }) }),
    );
    const { userId, workflow } = await seedEnterpriseWorkflow(store, YAML);
    const webhooksPerRun = sizes.connections;

    const atAim = { ...sizes, ratePerSec: opts.ratePerSec ?? WEBHOOK_AIM.perSec };
    progress(
      `webhook: bare Fastify route, ${sizes.connections} connections, ${sizes.durationMs / 1000} s, then ${atAim.ratePerSec}/s`,
    );
    const bareTarget: LoadTarget = { url: `${bareUrl}/bare/executions`, headers: () => ({}), body: BODY };
    const bareBefore = processCpuMs(barePid);
    const bare = await runLoad(bareTarget, sizes);
    const bareCpuMsPerRequest = perAnswer(bareBefore, processCpuMs(barePid), bare);
    const bareAtAim = await runLoadAtRate(bareTarget, atAim);
    const runs: WebhookEdgeRun[] = [];
    for (const edge of edges) {
      progress(
        `webhook: POST /api/webhooks/{id}/trigger (HMAC), ${edge.processes} edge process(es), ${sizes.connections} connections, ${sizes.durationMs / 1000} s, then ${atAim.ratePerSec}/s`,
      );
      const freshTarget = async (): Promise<LoadTarget> => {
        const webhookIds = await seedWebhooks(store, box, userId, workflow.id, webhooksPerRun);
        return {
          url: edge.url,
          path: (i) => `/api/webhooks/${webhookIds[i % webhookIds.length]}/trigger`,
          headers: () => ({ "x-webhook-signature": SIGNATURE }),
          body: BODY,
        };
      };
      const closedTarget = await freshTarget();
      const edgeBefore = processCpuMs(edge.pid);
      const natsBefore = sampleCpu().get("nats-server") ?? null;
      const load = await runLoad(closedTarget, sizes);
      const cpuMs = {
        edgePerTrigger: perAnswer(edgeBefore, processCpuMs(edge.pid), load),
        natsServerPerTrigger: perAnswer(natsBefore, sampleCpu().get("nats-server") ?? null, load),
      };
      const rated = await runLoadAtRate(await freshTarget(), atAim);
      const aimMet =
        atAim.ratePerSec >= WEBHOOK_AIM.perSec &&
        rated.perSec >= WEBHOOK_AIM.perSec * AIM_RATE_SHARE &&
        rated.latencyMs.p99 < WEBHOOK_AIM.p99Ms &&
        Object.keys(rated.statuses).join() === "202";
      runs.push({ processes: edge.processes, load, atAim: rated, ...ratiosToBare(load, bare), cpuMs, aimMet });
    }
    progress(`webhook: durable start alone (no HTTP), ${atAim.ratePerSec}/s`);
    const { storeAtAim, commandAtAim } = await runStoreAtRate(nc, `${ns}s`, workflow, atAim);
    const executionsStored = await countKeys(nc, `${ns}_executions_idx`);
    // Only start commands go to the edges' namespace: no executor runs, nobody cancels.
    const startCommandsStored = (await (await jetstreamManager(nc)).streams.info(streamNames(ns).cmd)).state.messages;
    const edgeLoads = runs.flatMap((r) => [r.load, r.atAim]);
    const answers = (status: string) => edgeLoads.reduce((n, l) => n + (l.allStatuses[status] ?? 0), 0);
    const all = edgeLoads.reduce((n, l) => n + Object.values(l.allStatuses).reduce((a, b) => a + b, 0), 0);
    const accepted = answers("202");
    const rateLimited = answers("429");
    return {
      sizes,
      ratePerSec: atAim.ratePerSec,
      bare,
      bareAtAim,
      bareCpuMsPerRequest,
      storeAtAim,
      commandAtAim,
      runs,
      webhooks: webhooksPerRun,
      accepted,
      rateLimited,
      otherAnswers: all - accepted - rateLimited,
      executionsStored,
      startCommandsStored,
      nothingLost: executionsStored === accepted && startCommandsStored === accepted,
      aimMet: runs.some((r) => r.aimMet),
    };
  } finally {
    await nc?.close();
    await targets.stop();
  }
}

/** `n` HMAC webhooks of the workflow (secret sealed by the edge's key). */
export async function seedWebhooks(
  store: Store,
  box: SecretBox,
  ownerId: string,
  workflowId: string,
  n: number,
): Promise<string[]> {
  const now = Date.now();
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const id = newId();
      await store.webhooks.create({
        id,
        ownerId,
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

/**
 * What a trigger asks of JetStream, without the edge: startExecution with the store, as the
 * trigger calls it, from this process at `ratePerSec` (open loop, each start timed from when it
 * was due), on a namespace of its own so that the edge runs' count stays theirs; then the start
 * commands alone at that rate (startExecution without a store: the command carries the
 * definition), one write per request.
 */
async function runStoreAtRate(
  nc: NatsConnection,
  ns: string,
  w: WorkflowRecord,
  opts: { ratePerSec: number; warmupMs: number; durationMs: number },
): Promise<{ storeAtAim: LoadResult; commandAtAim: LoadResult }> {
  await ensureStreams(await jetstreamManager(nc), ns, { eventsMaxAgeMs: 3_600_000, placement: ONE_REPLICA });
  const store = await openStore({ kind: "kv", nc, namespace: ns });
  const publisher = new JetStreamPublisher(nc);
  const req = {
    workflow: { id: w.id, name: w.name, ownerId: w.ownerId, version: w.version, definition: w.definition },
    inputs: { who: "bench" },
    triggerSource: "webhook" as const,
  };
  const status = (started: Promise<unknown>) =>
    started.then(
      () => 202,
      () => 0,
    );
  try {
    const storeAtAim = await runAtRate(() => status(startExecution(publisher, ns, req, { store })), opts);
    const commandAtAim = await runAtRate(() => status(startExecution(publisher, ns, req)), opts);
    return { storeAtAim, commandAtAim };
  } finally {
    publisher.close();
    await store.close();
  }
}

function perAnswer(before: number | null, after: number | null, load: LoadResult): number | null {
  const answers = Object.values(load.allStatuses).reduce((a, b) => a + b, 0);
  return before === null || after === null || answers === 0 ? null : round((after - before) / answers, 3);
}

/** Live keys of a KV bucket (deleted and purged ones are not listed). */
async function countKeys(nc: NatsConnection, bucket: string): Promise<number> {
  const kv = await new Kvm(nc).open(bucket);
  let n = 0;
  for await (const key of await kv.keys()) if (key) n++;
  return n;
}

const ms = (x: number | null): string => (x === null ? "n/a" : `${x} ms`);
const perCore = (x: number | null): string => (x ? Math.round(1000 / x).toLocaleString("en-US") : "n/a");

const statusText = (statuses: Record<string, number>): string =>
  Object.entries(statuses)
    .map(([status, n]) => `${status === "0" ? "failed" : status} x${n}`)
    .join(", ");

/** The spread of the per-second p99s and how many seconds alone would miss the aim's p99. */
function secondsText(p99s: readonly number[]): string {
  const sorted = [...p99s].sort((a, b) => a - b);
  const over = sorted.filter((p) => p >= WEBHOOK_AIM.p99Ms).length;
  return `best ${sorted[0]!.toFixed(1)} ms, median ${median(sorted).toFixed(1)} ms, worst ${sorted.at(-1)!.toFixed(1)} ms; ${over} of ${sorted.length} s at or over ${WEBHOOK_AIM.p99Ms} ms`;
}

const edgeName = (run: WebhookEdgeRun): string =>
  `POST /api/webhooks/{id}/trigger, ${run.processes} edge process${run.processes > 1 ? "es" : ""}`;

export function renderWebhookBench(r: WebhookBenchResult): string {
  const row = (name: string, x: LoadResult, note = "") =>
    `  ${name.padEnd(48)} ${`${x.perSec.toLocaleString("en-US")}/s`.padStart(9)}  p50 ${x.latencyMs.p50.toFixed(2).padStart(6)} ms  p99 ${x.latencyMs.p99.toFixed(2).padStart(6)} ms  (${statusText(x.statuses)})${note}` +
    (x.secondP99s ? `\n    p99 of each second: ${secondsText(x.secondP99s)}` : "") +
    (x.sentLateMs
      ? `; the load tool sent them late by p99 ${x.sentLateMs.p99} ms, at most ${x.sentLateMs.max} ms`
      : "");
  const n8n = PUBLISHED.ingestContext.perSec["n8n single instance"];
  const aim = `aim >= ${WEBHOOK_AIM.perSec.toLocaleString("en-US")} triggers/s with p99 < ${WEBHOOK_AIM.p99Ms} ms`;
  return [
    `Webhook ingestion (${r.sizes.connections} keep-alive connections, no pipelining, ${r.sizes.durationMs / 1000} s each after ${r.sizes.warmupMs / 1000} s warm-up, same load tool; ` +
      `${r.webhooks} HMAC webhooks of one Enterprise owner per load run, one per connection; no executor runs, executions stay PENDING)`,
    `  closed loop (each connection sends its next request on the answer: the most each target answers; latency = connections / rate)`,
    row("bare Fastify route, 202 JSON", r.bare, `  CPU ${ms(r.bareCpuMsPerRequest)}/request`),
    ...r.runs.flatMap((run) => [
      row(edgeName(run), run.load),
      `    / bare: throughput ${run.throughputRatio}, p50 ${run.p50Ratio}x, p99 ${run.p99Ratio}x; ours / n8n ${round(run.load.perSec / n8n, 1)} (n8n ${n8n}/s on 2 vCPU); ` +
        `CPU per trigger: edge ${ms(run.cpuMs.edgePerTrigger)} (one core's worth: ${perCore(run.cpuMs.edgePerTrigger)}/s), nats-server ${ms(run.cpuMs.natsServerPerTrigger)}`,
    ]),
    `  open loop at ${r.ratePerSec.toLocaleString("en-US")}/s (requests sent when due, latency from when due; at most ${r.sizes.connections} connections)`,
    row("bare Fastify route, 202 JSON", r.bareAtAim),
    row(
      "durable start alone (no HTTP)",
      r.storeAtAim,
      "  the store's own floor: the trigger's 2 JetStream writes from one client",
    ),
    row("start command alone (no HTTP)", r.commandAtAim, "  1 JetStream write per request"),
    ...r.runs.map((run) => row(edgeName(run), run.atAim, `  ${aim}: ${run.aimMet ? "MET" : "NOT MET"}`)),
    `  answers incl. warm-up: 202 x${r.accepted}, 429 x${r.rateLimited}, other x${r.otherAnswers}`,
    `  executions listed by the store afterwards: ${r.executionsStored}, their start commands: ${r.startCommandsStored}; 202 answers: ${r.accepted} -> ${r.nothingLost ? "NOTHING LOST" : `MISMATCH (${r.executionsStored - r.accepted} listed, ${r.startCommandsStored - r.accepted} commands)`}`,
  ].join("\n");
}
