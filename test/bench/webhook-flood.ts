import type { NatsConnection } from "@nats-io/nats-core";
import { ENV_SCHEMA } from "@wf/shared/config";
import { EdgeLatency } from "@wf/shared/messages";
import { connectNats, subjects } from "@wf/shared/nats";
import { runLoad } from "./api-load";
import { withTimeout } from "./bounded";
import { CompletionWatcher } from "./completions";
import { median, round, summarize, type Summary } from "./stats";
import { BODY, SIGNATURE } from "./webhook-bench";
import { runAt, startE2eService, YIELD_ON, type E2eMeasurement, type E2eTarget } from "./webhook-e2e";
import { yieldsIn, yieldText, type YieldCourseSeen } from "./yield-log";

export interface WebhookFloodSizes {
  connections: number;
  warmupMs: number;
  durationMs: number;
  drainMs: number;
  /**
   * Runs of each setting, taking turns (the default, yielding, the default, ...): the verdict compares their medians.
   * One run of each flipped from MET to NOT MET and back between runs of the same code (2026-12-05).
   */
  rounds: number;
}

/** As a `wrk -t2 -c64 -d15s` flood: 64 connections in a closed loop for 15 s. */
export const WEBHOOK_FLOOD_SIZES: WebhookFloodSizes = {
  connections: 64,
  warmupMs: 1_000,
  durationMs: 15_000,
  drainMs: 180_000,
  rounds: 3,
};
export const WEBHOOK_FLOOD_QUICK_SIZES: WebhookFloodSizes = {
  connections: 64,
  warmupMs: 500,
  durationMs: 3_000,
  drainMs: 60_000,
  rounds: 1,
};

/** Completions while triggers arrive, as a share of the same run's drain rate (the executor alone). */
export const FLOOD_AIM = { drainShare: 0.5 } as const;

/**
 * A run, with the 99th percentiles its edge reported each half second (what the executor's yield judges), what the
 * yield did while the triggers came, and how a quiet owner's workflows fared beside the flood.
 */
export type FloodRun = E2eMeasurement & { edgeP99sMs: number[]; yields: YieldCourseSeen; quiet: QuietOwner };

/** Another owner's workflows, triggered QUIET_EVERY_MS while the flood lasts: trigger to completion, as its client sees. */
export interface QuietOwner {
  triggered: number;
  completed: number;
  latencyMs: Summary | null;
}

/** Four of the quiet owner's triggers a second: a tenant that is not flooding. */
const QUIET_EVERY_MS = 250;

export interface WebhookFloodResult {
  /** The service with its defaults (its executor never yields), one run per round. */
  unyielding: FloodRun[];
  /** The same, its executor yielding to a growing backlog (YIELD_ON): what the yield would cost and buy. */
  yielding: FloodRun[];
}

/** Where an edge counts as slow by default. */
const SLOW_EDGE_MS = Number(ENV_SCHEMA.WF_EXEC_YIELD_EDGE_P99_MS.default);

/**
 * Webhook-triggered 3-step JavaScript workflows under a closed-loop flood (each connection sends
 * its next trigger on the last answer): how many complete while triggers keep coming, against
 * how fast the same process drains its backlog once they stop (docs/operations.md#benchmarks).
 */
export async function runWebhookFlood(
  server: { url: string; monitorUrl?: string | undefined },
  sizes: WebhookFloodSizes,
  opts: {
    progress: (line: string) => void;
    track: (close: () => Promise<void>) => () => void;
    serviceEnv?: Record<string, string> | undefined;
  },
): Promise<WebhookFloodResult> {
  const nc: NatsConnection = await connectNats(server.url, "wf-bench-flood");
  const runWith = async (env: Record<string, string>): Promise<FloodRun> => {
    const service = await startE2eService(server, { ...opts.serviceEnv, ...env }, opts.track);
    const edgeP99sMs: number[] = [];
    let sub: { unsubscribe(): void } | undefined;
    try {
      const { connections, warmupMs, durationMs, drainMs } = sizes;
      const target = await service.target(nc, connections, { quiet: true });
      const quiet = quietOwner(nc, target, drainMs);
      const span = { from: 0, to: 0 };
      sub = nc.subscribe(subjects(target.ns).edgeLatency, {
        callback: (_err, msg) => {
          const report = EdgeLatency.safeParse(msg.json());
          if (report.success) edgeP99sMs.push(report.data.p99Ms);
        },
      });
      const measured = await runAt(
        nc,
        target,
        {
          ratePerSec: 0,
          warmupMs,
          drainMs,
          load: async (target) => {
            quiet.start();
            span.from = Date.now();
            try {
              return await runLoad(target, { connections, warmupMs, durationMs });
            } finally {
              span.to = Date.now();
              quiet.stop();
            }
          },
        },
        server.monitorUrl,
      );
      const yields = yieldsIn(service.output(), span.from, span.to);
      return { ...measured, edgeP99sMs, yields, quiet: await quiet.result() };
    } finally {
      sub?.unsubscribe();
      await service.stop();
    }
  };
  try {
    const result: WebhookFloodResult = { yielding: [], unyielding: [] };
    for (let round = 1; round <= sizes.rounds; round++) {
      const of = `round ${round} of ${sizes.rounds}`;
      opts.progress(
        `webhook flood: ${sizes.connections} connections, closed loop, ${sizes.durationMs / 1000} s, defaults (${of})`,
      );
      result.unyielding.push(await runWith({}));
      opts.progress(`webhook flood: the executor yielding to triggers, WF_EXEC_YIELD_CONCURRENCY=4 (${of})`);
      result.yielding.push(await runWith(YIELD_ON));
    }
    return result;
  } finally {
    await nc.close();
  }
}

/**
 * Triggers the target's quiet owner every QUIET_EVERY_MS from `start` to `stop`, whether or not the last one has ended,
 * and times each accepted one from its trigger to its exec_completed event; `result` waits for them, each at most the
 * drain's bound and 30 s more.
 */
function quietOwner(
  nc: NatsConnection,
  target: E2eTarget,
  drainMs: number,
): { start(): void; stop(): void; result(): Promise<QuietOwner> } {
  const { ownerId, path } = target.quiet!;
  const watching = CompletionWatcher.open(nc, target.ns, { ownerId });
  const ends: Promise<number | null>[] = [];
  let triggered = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const trigger = async (): Promise<number | null> => {
    const watcher = await watching;
    const sentAt = performance.now();
    const res = await fetch(`${target.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-webhook-signature": SIGNATURE },
      body: BODY,
    });
    const body = (await res.json()) as { executionId?: string };
    if (res.status !== 202 || !body.executionId) return null;
    const end = await withTimeout(
      watcher.expect(body.executionId),
      drainMs + 30_000,
      "the quiet owner's execution",
    ).catch(() => null);
    return end?.type === "exec_completed" ? end.seenAt - sentAt : null;
  };
  return {
    start() {
      timer = setInterval(() => {
        triggered += 1;
        ends.push(trigger().catch(() => null));
      }, QUIET_EVERY_MS);
    },
    stop() {
      clearInterval(timer);
    },
    async result() {
      const latencies = (await Promise.all(ends)).filter((ms): ms is number => ms !== null);
      (await watching).close();
      return {
        triggered,
        completed: latencies.length,
        latencyMs: latencies.length > 0 ? summarize(latencies.map((ms) => round(ms, 1))) : null,
      };
    },
  };
}

/** Completions while triggers arrived over the drain rate; null when nothing was left to drain. */
export function drainShare(m: E2eMeasurement): number | null {
  return m.drainPerSec > 0 ? round(m.completedPerSec / m.drainPerSec, 2) : null;
}

export function renderWebhookFlood(r: WebhookFloodResult): string {
  const line = (label: string, m: FloodRun): string => {
    const share = drainShare(m);
    return (
      `  ${label}: answered ${m.webhook.perSec}/s (${m.accepted} accepted), webhook p50 ${m.webhook.latencyMs.p50} ms ` +
      `p99 ${m.webhook.latencyMs.p99} ms; completed ${m.completedPerSec}/s while triggers arrived, ` +
      `${m.drainPerSec}/s draining after (${share === null ? "nothing left" : `${share} of it`}); ` +
      `${m.completed} of ${m.accepted} completed, the last ${m.drainSeconds} s after the triggers stopped; ` +
      `${edgeText(m.edgeP99sMs)}; ${yieldText(m.yields)}; ${quietText(m.quiet)}`
    );
  };
  // A run with nothing left to drain kept up with its triggers: as good a share as any.
  const middle = (xs: number[]): number => round(median([...xs].sort((a, b) => a - b)), 2);
  const share = (runs: FloodRun[]): number => middle(runs.map((m) => drainShare(m) ?? Number.POSITIVE_INFINITY));
  const shareText = (runs: FloodRun[]): string =>
    Number.isFinite(share(runs)) ? `${share(runs)} of the drain rate` : "nothing left to drain";
  const p99 = (runs: E2eMeasurement[]): number => middle(runs.map((m) => m.webhook.latencyMs.p99));
  const met = share(r.unyielding) >= FLOOD_AIM.drainShare && p99(r.unyielding) <= p99(r.yielding);
  const rounds = r.unyielding.length;
  return [
    `Webhook flood (3-step JavaScript workflows, one all-in-one process, 64 connections in a closed loop; ${rounds} round(s), the settings taking turns)`,
    ...r.unyielding.flatMap((m, i) => [
      line(`round ${i + 1}, never yielding (default)`, m),
      line(`round ${i + 1}, yielding (WF_EXEC_YIELD_CONCURRENCY=4)`, r.yielding[i]!),
    ]),
    `  medians: never yielding (default) ${shareText(r.unyielding)}, webhook p99 ${p99(r.unyielding)} ms; ` +
      `yielding ${shareText(r.yielding)}, webhook p99 ${p99(r.yielding)} ms`,
    `  aim: completions while triggers arrive >= ${FLOOD_AIM.drainShare * 100}% of the drain rate, webhook p99 no worse than yielding's (medians, the defaults): ` +
      (met ? "MET" : "NOT MET"),
  ].join("\n");
}

/** How the quiet owner's workflows fared beside the flood. */
export function quietText(q: QuietOwner): string {
  const latency = q.latencyMs
    ? `, trigger to completion median ${q.latencyMs.median} ms, p90 ${q.latencyMs.p90} ms, max ${q.latencyMs.max} ms`
    : "";
  return (
    `another owner's workflows (each holding its slot for 1 s, as an LLM call does), ${1000 / QUIET_EVERY_MS} a second ` +
    `beside the flood: ${q.completed} of ${q.triggered} completed${latency}`
  );
}

/** What the edge reported: its half seconds' 99th percentiles, and how many were slow enough to start a yield. */
export function edgeText(p99s: readonly number[]): string {
  if (p99s.length === 0) return "the edge reported no half second";
  const sorted = [...p99s].sort((a, b) => a - b);
  const slow = sorted.filter((ms) => ms >= SLOW_EDGE_MS).length;
  return (
    `the edge's half-second p99: median ${round(median(sorted), 1)} ms, max ${round(sorted.at(-1)!, 1)} ms, ` +
    `${slow} of ${sorted.length} at ${SLOW_EDGE_MS} ms or over`
  );
}
