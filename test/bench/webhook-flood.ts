import type { NatsConnection } from "@nats-io/nats-core";
import { connectNats } from "@wf/shared/nats";
import { runLoad } from "./api-load";
import { round } from "./stats";
import { runAt, startE2eService, type E2eMeasurement } from "./webhook-e2e";

export interface WebhookFloodSizes {
  connections: number;
  warmupMs: number;
  durationMs: number;
  drainMs: number;
}

/** As a `wrk -t2 -c64 -d15s` flood: 64 connections in a closed loop for 15 s. */
export const WEBHOOK_FLOOD_SIZES: WebhookFloodSizes = {
  connections: 64,
  warmupMs: 1_000,
  durationMs: 15_000,
  drainMs: 180_000,
};
export const WEBHOOK_FLOOD_QUICK_SIZES: WebhookFloodSizes = {
  connections: 64,
  warmupMs: 500,
  durationMs: 3_000,
  drainMs: 60_000,
};

/** Completions while triggers arrive, as a share of the same run's drain rate (the executor alone). */
export const FLOOD_AIM = { drainShare: 0.5 } as const;

export interface WebhookFloodResult {
  /** The service with its defaults (its executor yields to a growing backlog). */
  yielding: E2eMeasurement;
  /** The same, its executor never yielding (WF_EXEC_YIELD_CONCURRENCY=0): what the yield costs and buys. */
  unyielding: E2eMeasurement;
}

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
  const runWith = async (env: Record<string, string>): Promise<E2eMeasurement> => {
    const service = await startE2eService(server, { ...opts.serviceEnv, ...env }, opts.track);
    try {
      const { connections, warmupMs, durationMs, drainMs } = sizes;
      return await runAt(
        nc,
        await service.target(nc, connections),
        { ratePerSec: 0, warmupMs, drainMs, load: (target) => runLoad(target, { connections, warmupMs, durationMs }) },
        server.monitorUrl,
      );
    } finally {
      await service.stop();
    }
  };
  try {
    opts.progress(`webhook flood: ${sizes.connections} connections, closed loop, ${sizes.durationMs / 1000} s`);
    const yielding = await runWith({});
    opts.progress("webhook flood: the executor never yielding");
    const unyielding = await runWith({ WF_EXEC_YIELD_CONCURRENCY: "0" });
    return { yielding, unyielding };
  } finally {
    await nc.close();
  }
}

/** Completions while triggers arrived over the drain rate; null when nothing was left to drain. */
export function drainShare(m: E2eMeasurement): number | null {
  return m.drainPerSec > 0 ? round(m.completedPerSec / m.drainPerSec, 2) : null;
}

export function renderWebhookFlood(r: WebhookFloodResult): string {
  const line = (label: string, m: E2eMeasurement): string => {
    const share = drainShare(m);
    return (
      `  ${label}: answered ${m.webhook.perSec}/s (${m.accepted} accepted), webhook p50 ${m.webhook.latencyMs.p50} ms ` +
      `p99 ${m.webhook.latencyMs.p99} ms; completed ${m.completedPerSec}/s while triggers arrived, ` +
      `${m.drainPerSec}/s draining after (${share === null ? "nothing left" : `${share} of it`}); ` +
      `${m.completed} of ${m.accepted} completed, the last ${m.drainSeconds} s after the triggers stopped`
    );
  };
  const share = drainShare(r.yielding);
  const met = share === null || share >= FLOOD_AIM.drainShare;
  return [
    "Webhook flood (3-step JavaScript workflows, one all-in-one process, 64 connections in a closed loop)",
    line("yielding (default)", r.yielding),
    line("never yielding", r.unyielding),
    `  aim: completions while triggers arrive >= ${FLOOD_AIM.drainShare * 100}% of the drain rate, webhook p99 no worse than never yielding: ` +
      (met && r.yielding.webhook.latencyMs.p99 <= r.unyielding.webhook.latencyMs.p99 ? "MET" : "NOT MET"),
  ].join("\n");
}
