import cluster, { type Worker } from "node:cluster";
import { mergeReports, OpsAsk, PeerAsker, replyTo, reportOf, type OpsSource } from "@wf/shared/ops";

/**
 * In an edge process of several (WF_EDGE_PROCESSES): answers the supervising process, whose ops
 * listener speaks for them all, over the cluster's IPC channel. `source` is null while the edge
 * process is starting.
 */
export function answerSupervisor(source: () => OpsSource | null): void {
  process.on("message", (message: unknown) => {
    const ask = OpsAsk.safeParse(message);
    if (!ask.success) return;
    void replyTo(ask.data, source()).then((reply) => {
      if (process.connected) process.send!(reply);
    });
  });
}

/**
 * In the supervising process: its edge processes as one part of its ops listener. Ready when
 * every one is (they share the port, so any may take the next connection); their metrics are
 * merged as prom-client merges a cluster's.
 */
export function edgeProcessesSource(): OpsSource {
  const asker = new PeerAsker();
  cluster.on("message", (_worker, message: unknown) => asker.receive(message));
  const running = () =>
    Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w.isConnected());
  return {
    name: null,
    async ready() {
      const workers = running();
      if (workers.length === 0) return reportOf({ "edge processes": "none is running" });
      return mergeReports(
        await Promise.all(
          workers.map(async (w) => ({
            name: `edge process ${w.process.pid}`,
            report: await asker
              .ready((ask) => w.send(ask))
              .catch((err: unknown) => reportOf({ report: err instanceof Error ? err.message : String(err) })),
          })),
        ),
      );
    },
    async metrics() {
      const parts = await Promise.all(running().map((w) => asker.metrics((ask) => w.send(ask)).catch(() => [])));
      return parts.flat();
    },
  };
}
