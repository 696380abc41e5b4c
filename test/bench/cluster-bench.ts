import type { NatsServerHandle } from "@wf/testing";
import { startNatsCluster } from "@wf/testing";
import { round } from "./stats";
import { runWebhookE2e, type WebhookE2eRun, type WebhookE2eSizes } from "./webhook-e2e";

export const CLUSTER_BENCH_SIZES: WebhookE2eSizes = {
  rates: [500, 1_000],
  warmupMs: 2_000,
  durationMs: 10_000,
  connections: 64,
  drainMs: 120_000,
};
export const CLUSTER_BENCH_QUICK_SIZES: WebhookE2eSizes = {
  rates: [300],
  warmupMs: 500,
  durationMs: 3_000,
  connections: 64,
  drainMs: 30_000,
};

export interface ClusterBenchResult {
  /** The same runs on the bench's one nats-server, then on three clustered on this machine (R3). */
  single: WebhookE2eRun[];
  cluster: WebhookE2eRun[];
  clusterVersion: string;
}

/**
 * Webhook ingestion and webhook-triggered 3-step JavaScript workflows, as the e2e part measures
 * them, on one nats-server and on a 3-node cluster whose streams and buckets keep three copies.
 * All of it shares this machine's cores, so the cluster's figure is what replication costs, not
 * what three machines would give.
 */
export async function runClusterBench(
  server: NatsServerHandle,
  sizes: WebhookE2eSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void },
): Promise<ClusterBenchResult> {
  opts.progress("cluster: the single server's baseline");
  // The comparison is one server against three: the floor (e2e's own baseline) would only double the time.
  const single = (await runWebhookE2e(server, sizes, { ...opts, floor: false })).runs;
  opts.progress("cluster: three nats-servers clustered on loopback, everything at three replicas");
  const cluster = await startNatsCluster(3, "wf-bench");
  const untrack = opts.track(() => cluster.stop());
  try {
    return {
      single,
      cluster: (await runWebhookE2e(cluster, sizes, { ...opts, floor: false })).runs,
      clusterVersion: cluster.servers[0]!.version,
    };
  } finally {
    untrack();
    await cluster.stop();
  }
}

export function renderClusterBench(r: ClusterBenchResult): string {
  const lines = [
    `3-node NATS cluster (R3, nats-server ${r.clusterVersion}, all on this machine) against one server: webhook-triggered 3-step JavaScript workflows, one all-in-one process`,
  ];
  r.single.forEach((one, i) => {
    const three = r.cluster[i]!;
    const ratio = (a: number, b: number) => (b === 0 ? "?" : `${round(a / b, 2)}x`);
    lines.push(
      `  triggers at ${one.ratePerSec}/s: webhook answered ${three.webhook.perSec}/s vs ${one.webhook.perSec}/s (${ratio(three.webhook.perSec, one.webhook.perSec)}), ` +
        `p99 ${three.webhook.latencyMs.p99} ms vs ${one.webhook.latencyMs.p99} ms (${ratio(three.webhook.latencyMs.p99, one.webhook.latencyMs.p99)}); ` +
        `completed ${three.completedPerSec}/s vs ${one.completedPerSec}/s (${ratio(three.completedPerSec, one.completedPerSec)}); ` +
        `${three.completed} of ${three.accepted} accepted completed on the cluster`,
    );
  });
  return lines.join("\n");
}
