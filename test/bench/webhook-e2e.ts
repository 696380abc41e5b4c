import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { ENV_SCHEMA, loadConfig } from "@wf/shared/config";
import { newId } from "@wf/shared/execution";
import { connectNats, streamPlacement } from "@wf/shared/nats";
import { SecretBox, serverKey } from "@wf/shared/secrets";
import { openStore } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/testing";
import { ENTRIES, startServiceProcess } from "../support/processes";
import { runLoadAtRate, type LoadResult } from "./api-load";
import { CompletionWatcher } from "./completions";
import { sampleCpu, serviceCpuMs, type ServiceCpu } from "./cpu";
import { seedEnterpriseWorkflow } from "./edge-targets";
import { round } from "./stats";
import { BODY, SIGNATURE, seedWebhooks } from "./webhook-bench";
import { threeStepWorkflow } from "./workflows";

export interface WebhookE2eSizes {
  /** Trigger rates of the open-loop runs, each against a fresh namespace of the one service. */
  rates: number[];
  warmupMs: number;
  durationMs: number;
  connections: number;
  /** How long the executions started in a run may take to complete after its triggers stop. */
  drainMs: number;
}

export const WEBHOOK_E2E_SIZES: WebhookE2eSizes = { rates: [500, 1_000, 5_000], warmupMs: 2_000, durationMs: 10_000, connections: 64, drainMs: 120_000 };
export const WEBHOOK_E2E_QUICK_SIZES: WebhookE2eSizes = { rates: [500], warmupMs: 500, durationMs: 3_000, connections: 64, drainMs: 30_000 };

/** The aim of completed workflows per second, and of the webhook's p99 while they run. */
export const E2E_AIM = { completedPerSec: 1_000, p99Ms: 20 } as const;

export interface WebhookE2eRun {
  ratePerSec: number;
  /** The triggers, timed from when each was due (open loop). */
  webhook: LoadResult;
  /** exec_completed events per second over the measured window, while triggers arrive. */
  completedPerSec: number;
  /** Executions accepted (202) in the whole run, and completed by the end of the drain. */
  accepted: number;
  completed: number;
  /** Seconds from the last trigger to the last completion. */
  drainSeconds: number;
  /** CPU ms per completed workflow: the service process with its sandbox runners, and nats-server. */
  cpuMsPerWorkflow: { service: number | null; natsServer: number | null };
  /** The service's part split: edge thread, executor thread, the process's other threads, sandbox runners. */
  serviceCpuMsPerWorkflow: { edgeThread: number; executorThread: number; otherThreads: number; runners: number } | null;
}

export interface WebhookE2eResult {
  runs: WebhookE2eRun[];
}

/**
 * Webhook-triggered 3-step JavaScript workflows end to end, as `npm start` runs them, with its
 * defaults (WF_EXEC_CONCURRENCY 64): one all-in-one process (edge, executor with its sandbox runners, approvals, scheduler) on the
 * bench's nats-server, HMAC webhook triggers sent in an open loop at each rate, and every
 * execution's exec_completed counted from the EVT stream. The webhook's latency is measured
 * while the executor works through what it accepted.
 */
export async function runWebhookE2e(
  server: Pick<NatsServerHandle, "url">,
  sizes: WebhookE2eSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void; serviceEnv?: Record<string, string> | undefined },
): Promise<WebhookE2eResult> {
  const ns = `e2e${newId().slice(-10)}`;
  const service = await startServiceProcess(
    ENTRIES.allInOne,
    // As `npm start` runs it: the test processes' WF_EXECUTOR_NICE of 0 is not the service's default.
    {
      NATS_URL: server.url,
      WF_NAMESPACE: ns,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      WF_EXECUTOR_NICE: ENV_SCHEMA.WF_EXECUTOR_NICE.default,
      ...opts.serviceEnv,
    },
    ["executor ready", "[wf] ready"],
  );
  const untrack = opts.track(() => service.kill());
  let nc: NatsConnection | undefined;
  try {
    const url = /edge on (http:\/\/[^,\s]+)/.exec(service.output())![1]!;
    nc = await connectNats(server.url, "wf-bench-e2e");
    // The service's placement (three copies on a cluster): opening the store reconciles its buckets to it.
    const store = await openStore({ kind: "kv", nc, namespace: ns, placement: streamPlacement({ WF_REPLICAS: "auto" }, nc) });
    const box = new SecretBox(await serverKey("webhookSecrets", { nc, config: loadConfig({ NATS_URL: server.url, WF_NAMESPACE: ns }) }));
    const yaml = threeStepWorkflow("javascript").replace("steps:", "variables:\n  who: { type: string, default: x }\nsteps:");
    const { userId, workflow } = await seedEnterpriseWorkflow(store, yaml);
    const runs: WebhookE2eRun[] = [];
    for (const ratePerSec of sizes.rates) {
      opts.progress(`webhook end to end: 3-step JavaScript workflows triggered at ${ratePerSec}/s, executor in the same process`);
      const webhookIds = await seedWebhooks(store, box, userId, workflow.id, sizes.connections);
      runs.push(await runAt(nc, ns, service.pid, url, webhookIds, ratePerSec, sizes));
    }
    await store.close();
    return { runs };
  } finally {
    await nc?.close();
    untrack();
    await service.stop();
  }
}

async function runAt(
  nc: NatsConnection,
  ns: string,
  servicePid: number,
  url: string,
  webhookIds: string[],
  ratePerSec: number,
  sizes: WebhookE2eSizes,
): Promise<WebhookE2eRun> {
  // Nobody waits on a given execution: every terminal event stays unclaimed, with when it came.
  const watcher = await CompletionWatcher.open(jetstream(nc), await jetstreamManager(nc), ns);
  const cpu0 = { split: serviceCpuMs(servicePid), nats: sampleCpu().get("nats-server") ?? null };
  const started = performance.now();
  const webhook = await runLoadAtRate(
    {
      url,
      path: (i) => `/api/webhooks/${webhookIds[i % webhookIds.length]}/trigger`,
      headers: () => ({ "x-webhook-signature": SIGNATURE }),
      body: BODY,
    },
    { ratePerSec, connections: sizes.connections, warmupMs: sizes.warmupMs, durationMs: sizes.durationMs },
  );
  const triggersEnded = performance.now();
  const accepted = webhook.allStatuses["202"] ?? 0;
  const deadline = triggersEnded + sizes.drainMs;
  while (watcher.unclaimed().length < accepted && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const cpu1 = { split: serviceCpuMs(servicePid), nats: sampleCpu().get("nats-server") ?? null };
  await watcher.close();
  const completions = watcher
    .unclaimed()
    .filter((c) => c.type === "exec_completed")
    .map((c) => c.seenAt);
  const from = started + sizes.warmupMs;
  const inWindow = completions.filter((t) => t >= from && t < triggersEnded).length;
  const per = (a: number | null, b: number | null) => (a === null || b === null || completions.length === 0 ? null : round((b - a) / completions.length, 2));
  return {
    ratePerSec,
    webhook,
    completedPerSec: Math.round(inWindow / ((triggersEnded - from) / 1000)),
    accepted,
    completed: completions.length,
    drainSeconds: round(((completions.at(-1) ?? triggersEnded) - triggersEnded) / 1000, 1),
    cpuMsPerWorkflow: { service: per(serviceTotal(cpu0.split), serviceTotal(cpu1.split)), natsServer: per(cpu0.nats, cpu1.nats) },
    serviceCpuMsPerWorkflow:
      cpu0.split && cpu1.split && completions.length > 0
        ? {
            edgeThread: per(cpu0.split.mainThread, cpu1.split.mainThread)!,
            executorThread: per(cpu0.split.workerThreads, cpu1.split.workerThreads)!,
            otherThreads: per(cpu0.split.otherThreads, cpu1.split.otherThreads)!,
            runners: per(cpu0.split.children, cpu1.split.children)!,
          }
        : null,
  };
}

export function renderWebhookE2e(r: WebhookE2eResult, natsVersion: string): string {
  const lines = [
    `Webhook-triggered 3-step JavaScript workflows end to end (one all-in-one process: edge, executor with 2 sandbox runners, scheduler, approvals; nats-server ${natsVersion}; open loop, 64 connections)`,
  ];
  for (const run of r.runs) {
    const met = run.completedPerSec >= E2E_AIM.completedPerSec && run.webhook.latencyMs.p99 < E2E_AIM.p99Ms;
    lines.push(
      `  triggers at ${run.ratePerSec}/s: answered ${run.webhook.perSec}/s, webhook p50 ${run.webhook.latencyMs.p50} ms p99 ${run.webhook.latencyMs.p99} ms; ` +
        `completed ${run.completedPerSec}/s while triggers arrived; ${run.completed} of ${run.accepted} accepted completed, the last ${run.drainSeconds} s after the triggers stopped; ` +
        `CPU per workflow: service ${run.cpuMsPerWorkflow.service ?? "?"} ms${splitText(run.serviceCpuMsPerWorkflow)}, nats-server ${run.cpuMsPerWorkflow.natsServer ?? "?"} ms` +
        (run.ratePerSec >= E2E_AIM.completedPerSec
          ? `  (aim >= ${E2E_AIM.completedPerSec} completed/s with webhook p99 < ${E2E_AIM.p99Ms} ms: ${met ? "MET" : "NOT MET"})`
          : ""),
    );
  }
  return lines.join("\n");
}

/** The service process with its sandbox runners. */
const serviceTotal = (cpu: ServiceCpu | null): number | null => (cpu === null ? null : cpu.process + cpu.children);

function splitText(split: WebhookE2eRun["serviceCpuMsPerWorkflow"]): string {
  if (!split) return "";
  return ` (edge thread ${split.edgeThread}, executor thread ${split.executorThread}, sandbox runners ${split.runners}, the process's other threads ${split.otherThreads})`;
}
