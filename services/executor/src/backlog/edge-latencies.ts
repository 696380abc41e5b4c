import type { NatsConnection } from "@nats-io/nats-core";
import { EdgeLatency } from "@wf/shared/messages";
import { LatestReports, subjects } from "@wf/shared/nats";

/** An edge's report counts this long: an edge that answers no triggers says nothing, and is then not slow. */
const HEARD_MS = 1_500;
/** Edges remembered at once; reports from more (forged, or a fleet past any real one) are not kept. */
const MAX_EDGES = 1_024;

/**
 * The newest report of each edge on `<ns>.edge.latency`: how slowly it answers triggers, for the executor's yield
 * (backlog-yield.ts). One slow half second counts: an edge pauses now and then under a flood (50–160 ms every few
 * seconds where the rest were 10–30 on 2 cores), and the short yields that follow kept the clients' 99th percentile
 * lower than never yielding did, where yields to two slow half seconds in a row only were too rare to matter
 * (docs/operations.md#triggers-first-the-executors-yield). A report that does not parse is dropped.
 */
export class EdgeLatencies {
  readonly #latest: LatestReports<EdgeLatency>;

  constructor(now: () => number = Date.now) {
    this.#latest = new LatestReports(EdgeLatency, (r) => r.edge, HEARD_MS, MAX_EDGES, now);
  }

  heard(data: Uint8Array | string): void {
    this.#latest.heard(data);
  }

  /** The highest 99th percentile of the edges heard from within HEARD_MS; null when none was. */
  slowest(): number | null {
    let slowest: number | null = null;
    for (const { p99Ms } of this.#latest.current()) slowest = Math.max(slowest ?? 0, p99Ms);
    return slowest;
  }
}

/** Follows the edges' reports until the returned function is called. */
export function followEdgeLatencies(nc: NatsConnection, ns: string, latencies: EdgeLatencies): () => void {
  const sub = nc.subscribe(subjects(ns).edgeLatency, {
    callback: (err, msg) => {
      if (!err) latencies.heard(msg.data);
    },
  });
  return () => sub.unsubscribe();
}
