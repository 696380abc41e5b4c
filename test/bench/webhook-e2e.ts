import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import type { NatsConnection } from "@nats-io/nats-core";
import { ENV_SCHEMA, loadConfig } from "@wf/shared/config";
import { newId, ownerLane } from "@wf/shared/execution";
import { connectNats, streamPlacement } from "@wf/shared/nats";
import { SecretBox, serverKey } from "@wf/shared/secrets";
import { openStore, type Store } from "@wf/shared/store";
import { ENTRIES, startServiceProcess, type ServiceProcess } from "../support/processes";
import { runLoadAtRate, type LoadResult, type LoadTarget } from "./api-load";
import { CompletionWatcher, type Completion } from "./completions";
import { messagesPer, natsMessages, type NatsMessages } from "./nats-messages";
import { sampleCpu, serviceCpuMs, type ServiceCpu } from "./cpu";
import { seedEnterpriseWorkflow } from "./edge-targets";
import { round } from "./stats";
import { AIM_RATE_SHARE, BODY, SECRET, SIGNATURE, seedWebhooks, WEBHOOK_AIM } from "./webhook-bench";
import { threeStepWorkflow } from "./workflows";

// From the repository's root: the benchmarks run from a bundle two folders below it (main.ts), as this file is.
const FLOOR_ENTRY = fileURLToPath(new URL("../../test/bench/floor/floor-service.ts", import.meta.url));

export interface WebhookE2eSizes {
  /** Trigger rates of the open-loop runs, each against a fresh namespace of the one service. */
  rates: number[];
  warmupMs: number;
  durationMs: number;
  connections: number;
  /** How long the executions started in a run may take to complete after its triggers stop. */
  drainMs: number;
  /**
   * One more run against a service whose executor yields to triggers (WF_EXEC_YIELD_CONCURRENCY=4; the default never
   * does): what the yield would be worth at that rate.
   */
  yielding?: { ratePerSec: number } | undefined;
  /**
   * One more run against a service that follows the execution lists' index from the start
   * (WF_LIST_VIEW_AT_START=1), as the all-in-one service does from its scheduler's first sweep,
   * a minute after start, on: the other runs end before that.
   */
  listing?: { ratePerSec: number } | undefined;
}

/** The executors' yield to triggers as an operator would turn it on (the default never yields): 4 at once to start. */
export const YIELD_ON = { WF_EXEC_YIELD_CONCURRENCY: "4" } as const;

export const WEBHOOK_E2E_SIZES: WebhookE2eSizes = {
  rates: [500, 1_000, 5_000],
  warmupMs: 2_000,
  durationMs: 10_000,
  connections: 64,
  drainMs: 120_000,
  yielding: { ratePerSec: 5_000 },
  listing: { ratePerSec: 1_000 },
};
export const WEBHOOK_E2E_QUICK_SIZES: WebhookE2eSizes = {
  rates: [500],
  warmupMs: 500,
  durationMs: 3_000,
  connections: 64,
  drainMs: 30_000,
};

/** The aim of completed workflows per second, and of the webhook's p99 while they run. */
export const E2E_AIM = { completedPerSec: 1_000, p99Ms: 20 } as const;

/** One open-loop run of webhook triggers against a process, with what it completed and the CPU it took. */
export interface E2eMeasurement {
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
  /** Completions per second after the triggers stopped: the executor draining alone (0 with nothing left). */
  drainPerSec: number;
  /** CPU ms per completed workflow: the process with its runners, and nats-server. */
  cpuMsPerWorkflow: { service: number | null; natsServer: number | null };
  /** The process's part split: edge (main) thread, executor thread, the process's other threads, runners. */
  serviceCpuMsPerWorkflow: { edgeThread: number; executorThread: number; otherThreads: number; runners: number } | null;
  /**
   * Messages per completed workflow that nats-server received (publishes, requests, acks) and
   * sent (acks, replies, deliveries), its whole traffic over the run; null without its monitoring.
   */
  natsMessagesPerWorkflow: NatsMessages | null;
}

/** The service's run at one rate, and the same-run floor's at the same rate (unless it was left out). */
export interface WebhookE2eRun extends E2eMeasurement {
  floor?: E2eMeasurement;
}

export interface WebhookE2eResult {
  runs: WebhookE2eRun[];
  /** The run against the service whose executor yields (sizes.yielding), when asked for. */
  yielding?: E2eMeasurement;
  /** The run against a service following the lists' index (sizes.listing), when asked for. */
  listing?: E2eMeasurement;
}

/**
 * Webhook-triggered 3-step JavaScript workflows end to end, as `npm start` runs them with its
 * defaults: one all-in-one process on the bench's nats-server, HMAC triggers in an open loop at each
 * rate, every exec_completed counted from the EVT stream, the webhook's latency measured while the
 * executor works. Each rate is then run against the floor, floor/floor-service.ts
 * (docs/operations.md#benchmarks).
 */
export async function runWebhookE2e(
  server: { url: string; monitorUrl?: string | undefined },
  sizes: WebhookE2eSizes,
  opts: {
    progress: (line: string) => void;
    track: (close: () => Promise<void>) => () => void;
    serviceEnv?: Record<string, string> | undefined;
    /** Runs each rate against the floor too (default true). */
    floor?: boolean;
  },
): Promise<WebhookE2eResult> {
  const service = await startE2eService(server, opts.serviceEnv, opts.track);
  const floorNs = `floor${newId().slice(-10)}`;
  let floor: ServiceProcess | undefined;
  let untrackFloor = (): void => undefined;
  let nc: NatsConnection | undefined;
  try {
    let floorTarget: E2eTarget | undefined;
    if (opts.floor ?? true) {
      const started = await startServiceProcess(
        FLOOR_ENTRY,
        { NATS_URL: server.url, WF_NAMESPACE: floorNs, FLOOR_SECRET: SECRET },
        ["floor ready"],
        {
          fromSource: true,
        },
      );
      floor = started;
      untrackFloor = opts.track(() => started.kill());
      floorTarget = {
        ns: floorNs,
        pid: started.pid,
        url: /floor on (http:\/\/[^,\s]+)/.exec(started.output())![1]!,
        path: (i) => `/hooks/h${i}/trigger`,
      };
    }
    nc = await connectNats(server.url, "wf-bench-e2e");
    const client = nc;
    /** One run at `ratePerSec` against a service of its own, started with `env` on top. */
    const runAgainst = async (env: Record<string, string>, ratePerSec: number): Promise<E2eMeasurement> => {
      const other = await startE2eService(server, env, opts.track);
      try {
        return await runAt(
          client,
          await other.target(client, sizes.connections),
          atRate(ratePerSec, sizes),
          server.monitorUrl,
        );
      } finally {
        await other.stop();
      }
    };
    const runs: WebhookE2eRun[] = [];
    for (const ratePerSec of sizes.rates) {
      opts.progress(
        `webhook end to end: 3-step JavaScript workflows triggered at ${ratePerSec}/s, executor in the same process`,
      );
      const ours = await runAt(
        nc,
        await service.target(nc, sizes.connections),
        atRate(ratePerSec, sizes),
        server.monitorUrl,
      );
      if (!floorTarget) {
        runs.push(ours);
        continue;
      }
      opts.progress(`webhook end to end: the floor at ${ratePerSec}/s`);
      runs.push({ ...ours, floor: await runAt(nc, floorTarget, atRate(ratePerSec, sizes), server.monitorUrl) });
    }
    await service.stop();
    const result: WebhookE2eResult = { runs };
    if (sizes.listing) {
      const { ratePerSec } = sizes.listing;
      opts.progress(
        `webhook end to end: triggered at ${ratePerSec}/s, the service following the execution lists' index`,
      );
      result.listing = await runAgainst({ ...opts.serviceEnv, WF_LIST_VIEW_AT_START: "1" }, ratePerSec);
    }
    if (sizes.yielding) {
      const { ratePerSec } = sizes.yielding;
      opts.progress(`webhook end to end: triggered at ${ratePerSec}/s, the executor yielding to triggers`);
      result.yielding = await runAgainst({ ...opts.serviceEnv, ...YIELD_ON }, ratePerSec);
    }
    return result;
  } finally {
    untrackFloor();
    await Promise.all([service.stop(), floor?.stop()]);
    await nc?.close();
  }
}

/**
 * An all-in-one service on a namespace of its own, from the bundle as the image runs it (`env` on top), with
 * the bench's workflow; `target` seeds fresh webhooks of it for a run. `stop` may be called again.
 */
export async function startE2eService(
  server: { url: string },
  env: Record<string, string> | undefined,
  track: (close: () => Promise<void>) => () => void,
): Promise<{
  target(nc: NatsConnection, webhooks: number, opts?: { quiet?: boolean }): Promise<E2eTarget>;
  /** What it has logged so far. */
  output(): string;
  stop(): Promise<void>;
}> {
  const ns = `e2e${newId().slice(-10)}`;
  const service = await startServiceProcess(
    ENTRIES.allInOne,
    // As the image runs it: the test processes' WF_EXECUTOR_NICE of 0 is not the service's default.
    {
      NATS_URL: server.url,
      WF_NAMESPACE: ns,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      WF_EXECUTOR_NICE: ENV_SCHEMA.WF_EXECUTOR_NICE.default,
      ...env,
    },
    ["executor ready", "[wf] ready"],
  );
  const untrack = track(() => service.kill());
  const url = /edge on (http:\/\/[^,\s]+)/.exec(service.output())![1]!;
  let seeded: { store: Store; box: SecretBox; userId: string; workflowId: string } | undefined;
  let stopped: Promise<void> | undefined;
  return {
    async target(nc, webhooks, opts = {}) {
      if (!seeded) {
        // The service's placement (three copies on a cluster): opening the store reconciles its buckets to it.
        const store = await openStore({
          kind: "kv",
          nc,
          namespace: ns,
          placement: streamPlacement({ WF_REPLICAS: "auto" }, nc),
        });
        const box = new SecretBox(
          await serverKey("webhookSecrets", { nc, config: loadConfig({ NATS_URL: server.url, WF_NAMESPACE: ns }) }),
        );
        const yaml = threeStepWorkflow("javascript").replace(
          "steps:",
          "variables:\n  who: { type: string, default: x }\nsteps:",
        );
        const { userId, workflow } = await seedEnterpriseWorkflow(store, yaml);
        seeded = { store, box, userId, workflowId: workflow.id };
      }
      const webhookIds = await seedWebhooks(seeded.store, seeded.box, seeded.userId, seeded.workflowId, webhooks);
      const target: E2eTarget = {
        ns,
        pid: service.pid,
        url,
        path: (i) => `/api/webhooks/${webhookIds[i % webhookIds.length]}/trigger`,
      };
      if (!opts.quiet) return target;
      // Another owner, in another start lane than the flood's: what the executor's yield does to a bystander.
      let ownerId = newId();
      while (ownerLane(ownerId) === ownerLane(seeded.userId)) ownerId = newId();
      const { workflow } = await seedEnterpriseWorkflow(seeded.store, QUIET_WORKFLOW, ownerId);
      const [quietHook] = await seedWebhooks(seeded.store, seeded.box, ownerId, workflow.id, 1);
      return { ...target, quiet: { ownerId, path: `/api/webhooks/${quietHook}/trigger` } };
    },
    output: () => service.output(),
    stop() {
      stopped ??= (async () => {
        await seeded?.store.close();
        untrack();
        await service.stop();
      })();
      return stopped;
    },
  };
}

/**
 * A process the triggers go to: its namespace (where its events are read), pid, address and trigger path per
 * connection.
 */
export interface E2eTarget {
  ns: string;
  pid: number;
  url: string;
  path(connection: number): string;
  /** Another owner's webhook, whose executions the run's figures leave out. */
  quiet?: { ownerId: string; path: string };
}

/**
 * The quiet owner's workflow: it holds an executor's slot for a second, as a step waiting on an LLM does (a wait that
 * short stays in hand), then ends with a transform.
 */
const QUIET_WORKFLOW = `name: bench-quiet-hold
steps:
  - { name: call, type: wait, seconds: 1 }
  - { name: done, type: transform, output: 1 }
`;

/** How a run sends its triggers: `load` drives them (open loop at `ratePerSec`, or closed loop: 0). */
export interface E2eLoad {
  ratePerSec: number;
  warmupMs: number;
  drainMs: number;
  load(target: LoadTarget): Promise<LoadResult>;
}

function atRate(ratePerSec: number, sizes: WebhookE2eSizes): E2eLoad {
  const { connections, warmupMs, durationMs, drainMs } = sizes;
  return {
    ratePerSec,
    warmupMs,
    drainMs,
    load: (target) => runLoadAtRate(target, { ratePerSec, connections, warmupMs, durationMs }),
  };
}

/** Triggers `target` as `run` says, then waits for every accepted execution to complete (or the drain's bound). */
export async function runAt(
  nc: NatsConnection,
  target: E2eTarget,
  run: E2eLoad,
  monitorUrl: string | undefined,
): Promise<E2eMeasurement> {
  const { ns, pid: servicePid, url } = target;
  // Nobody waits on a given execution: every terminal event stays unclaimed, with when it came.
  const watcher = await CompletionWatcher.open(nc, ns);
  const cpu0 = { split: serviceCpuMs(servicePid), nats: sampleCpu().get("nats-server") ?? null };
  const messages0 = await natsMessages(monitorUrl);
  const started = performance.now();
  const webhook = await run.load({
    url,
    path: target.path,
    headers: () => ({ "x-webhook-signature": SIGNATURE }),
    body: BODY,
  });
  const triggersEnded = performance.now();
  const accepted = webhook.allStatuses["202"] ?? 0;
  const deadline = triggersEnded + run.drainMs;
  const quietOwner = target.quiet?.ownerId;
  const mine = (): Completion[] => watcher.unclaimed().filter((c) => c.ownerId !== quietOwner);
  while (mine().length < accepted && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const cpu1 = { split: serviceCpuMs(servicePid), nats: sampleCpu().get("nats-server") ?? null };
  const messages1 = await natsMessages(monitorUrl);
  watcher.close();
  const completions = mine()
    .filter((c) => c.type === "exec_completed")
    .map((c) => c.seenAt);
  const from = started + run.warmupMs;
  const inWindow = completions.filter((t) => t >= from && t < triggersEnded).length;
  const drained = completions.filter((t) => t >= triggersEnded);
  const drainMs = (drained.at(-1) ?? triggersEnded) - triggersEnded;
  const per = (a: number | null, b: number | null) =>
    a === null || b === null || completions.length === 0 ? null : round((b - a) / completions.length, 2);
  return {
    ratePerSec: run.ratePerSec,
    webhook,
    completedPerSec: Math.round(inWindow / ((triggersEnded - from) / 1000)),
    accepted,
    completed: completions.length,
    drainSeconds: round(((completions.at(-1) ?? triggersEnded) - triggersEnded) / 1000, 1),
    drainPerSec: drainMs > 0 ? Math.round(drained.length / (drainMs / 1000)) : 0,
    cpuMsPerWorkflow: {
      service: per(serviceTotal(cpu0.split), serviceTotal(cpu1.split)),
      natsServer: per(cpu0.nats, cpu1.nats),
    },
    serviceCpuMsPerWorkflow:
      cpu0.split && cpu1.split && completions.length > 0
        ? {
            edgeThread: per(cpu0.split.mainThread, cpu1.split.mainThread)!,
            executorThread: per(cpu0.split.workerThreads, cpu1.split.workerThreads)!,
            otherThreads: per(cpu0.split.otherThreads, cpu1.split.otherThreads)!,
            runners: per(cpu0.split.children, cpu1.split.children)!,
          }
        : null,
    natsMessagesPerWorkflow: messagesPer(messages0, messages1, completions.length),
  };
}

/**
 * Sustained: the executions keep up with triggers at the aim's rate. Completions counted while
 * triggers arrive trail them by the executions still in flight when they stop, so the window's
 * rate is held to the webhook part's share of the aim, and no backlog may be left (the last
 * completion within a second of the last trigger).
 */
export function e2eAimMet(run: E2eMeasurement): boolean {
  return (
    run.ratePerSec >= E2E_AIM.completedPerSec &&
    run.completedPerSec >= E2E_AIM.completedPerSec * AIM_RATE_SHARE &&
    run.completed === run.accepted &&
    run.drainSeconds <= 1 &&
    run.webhook.latencyMs.p99 < E2E_AIM.p99Ms
  );
}

/**
 * The webhook part's aim (every trigger answered 202 at its rate, p99 under 20 ms), met while the executor consumes.
 */
export function consumingAimMet(run: E2eMeasurement): boolean {
  return (
    run.ratePerSec >= WEBHOOK_AIM.perSec &&
    run.webhook.perSec >= WEBHOOK_AIM.perSec * AIM_RATE_SHARE &&
    run.webhook.latencyMs.p99 < WEBHOOK_AIM.p99Ms &&
    Object.keys(run.webhook.statuses).join() === "202" &&
    run.completedPerSec > 0
  );
}

export function renderWebhookE2e(r: WebhookE2eResult, natsVersion: string): string {
  const lines = [
    `Webhook-triggered 3-step JavaScript workflows end to end (one all-in-one process: edge, executor with 2 sandbox runners, scheduler, approvals; nats-server ${natsVersion}; open loop, 64 connections), ` +
      `each rate then run against the same-run floor (the same durable writes and process layout, bare: floor/floor-service.ts)`,
  ];
  for (const run of r.runs) {
    const met = e2eAimMet(run);
    lines.push(
      `  triggers at ${run.ratePerSec}/s: ${measurementText(run, "service")}` +
        (run.ratePerSec >= WEBHOOK_AIM.perSec
          ? consumingAimText(run)
          : run.ratePerSec >= E2E_AIM.completedPerSec
            ? `  (aim >= ${E2E_AIM.completedPerSec} completed/s sustained, at least ${AIM_RATE_SHARE * 100}% while triggers arrive and no backlog after, with webhook p99 < ${E2E_AIM.p99Ms} ms: ${met ? "MET" : "NOT MET"})`
            : ""),
      ...(run.floor
        ? [`    floor: ${measurementText(run.floor, "process")}`, `    ${floorComparison(run, run.floor)}`]
        : []),
    );
  }
  const { listing, yielding } = r;
  if (listing)
    lines.push(
      `  triggers at ${listing.ratePerSec}/s, the service following the execution lists' index (WF_LIST_VIEW_AT_START=1, as the all-in-one service does a minute after start): ${measurementText(listing, "service")}`,
    );
  if (yielding)
    lines.push(
      `  triggers at ${yielding.ratePerSec}/s, the executor yielding to triggers (WF_EXEC_YIELD_CONCURRENCY=4): ${measurementText(yielding, "service")}` +
        (yielding.ratePerSec >= WEBHOOK_AIM.perSec ? consumingAimText(yielding) : ""),
    );
  return lines.join("\n");
}

function consumingAimText(run: E2eMeasurement): string {
  return `  (aim: webhook p99 < ${WEBHOOK_AIM.p99Ms} ms at ${WEBHOOK_AIM.perSec}/s while an executor consumes: ${consumingAimMet(run) ? "MET" : "NOT MET"})`;
}

function measurementText(m: E2eMeasurement, what: string): string {
  return (
    `answered ${m.webhook.perSec}/s, webhook p50 ${m.webhook.latencyMs.p50} ms p99 ${m.webhook.latencyMs.p99} ms` +
    (m.webhook.sentLateMs ? ` (the load tool's own lateness: p99 ${m.webhook.sentLateMs.p99} ms)` : "") +
    "; " +
    `completed ${m.completedPerSec}/s while triggers arrived; ${m.completed} of ${m.accepted} accepted completed, the last ${m.drainSeconds} s after the triggers stopped; ` +
    `CPU per workflow: ${what} ${m.cpuMsPerWorkflow.service ?? "?"} ms${splitText(m.serviceCpuMsPerWorkflow)}, nats-server ${m.cpuMsPerWorkflow.natsServer ?? "?"} ms` +
    (m.natsMessagesPerWorkflow
      ? `; NATS messages per workflow: ${m.natsMessagesPerWorkflow.received} to the server, ${m.natsMessagesPerWorkflow.sent} from it`
      : "")
  );
}

/** CPU ms per workflow of the process and nats-server together; null when either was not measured. */
function totalCpu(m: E2eMeasurement): number | null {
  const { service, natsServer } = m.cpuMsPerWorkflow;
  return service === null || natsServer === null ? null : service + natsServer;
}

/** The service against the floor, and the rate the floor's CPU per workflow allows on this machine's cores. */
function floorComparison(run: E2eMeasurement, floorRun: E2eMeasurement): string {
  const ours = totalCpu(run);
  const floor = totalCpu(floorRun);
  if (ours === null || floor === null || floor === 0) return "(CPU not measured: no /proc)";
  const cores = cpus().length;
  return (
    `the service takes ${round(ours / floor, 2)}x the floor's CPU per workflow (${round(ours, 2)} against ${round(floor, 2)} ms with nats-server) ` +
    `and completes ${floorRun.completedPerSec === 0 ? "?" : round(run.completedPerSec / floorRun.completedPerSec, 2)}x its rate; ` +
    `at the floor's CPU per workflow, this machine's ${cores} cores allow at most ~${Math.round((cores * 1000) / floor)} workflows/s`
  );
}

/** The service process with its sandbox runners. */
const serviceTotal = (cpu: ServiceCpu | null): number | null => (cpu === null ? null : cpu.process + cpu.children);

function splitText(split: E2eMeasurement["serviceCpuMsPerWorkflow"]): string {
  if (!split) return "";
  return ` (edge thread ${split.edgeThread}, executor thread ${split.executorThread}, runners ${split.runners}, the process's other threads ${split.otherThreads})`;
}
