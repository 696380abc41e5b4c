import { performance } from "node:perf_hooks";
import { KeepAlivePool, postBytes } from "./keep-alive-pool";
import { percentile, round } from "./stats";

export interface LoadTarget {
  url: string;
  /** Headers of the n-th connection's requests (each connection can carry its own key). */
  headers(connection: number): Record<string, string>;
  body: string;
  /** The n-th connection's path and query, when connections target different URLs of one host. */
  path?(connection: number): string;
}

export interface LoadResult {
  requests: number;
  perSec: number;
  latencyMs: { p50: number; p99: number; mean: number };
  /** Answers by status code; anything but the expected one is an error of the run. */
  statuses: Record<string, number>;
  failures: number;
  /** Every answer by status code, warm-up included: what the server was asked to do in total. */
  allStatuses: Record<string, number>;
  /**
   * Open loop only: the p99 of each second of the measured window (requests grouped by when they
   * were due), which tells a tail spread over the run from one made in a few bad seconds.
   */
  secondP99s?: number[];
  /**
   * Open loop only: how late the load tool itself sent the measured requests (its own timer's
   * lateness on a shared machine; a request then waiting for a free connection counts against
   * the server), which tells a tail the tool made from the server's.
   */
  sentLateMs?: { p99: number; max: number };
}

/** POSTs the target's body for the n-th connection; resolves the answer's status, 0 when it failed. */
function poster(target: LoadTarget, url: URL, pool: KeepAlivePool): (connection: number) => Promise<number> {
  const body = Buffer.from(target.body);
  // Prepared once per connection: each carries its own path and headers, the same every time.
  const prepared = new Map<number, Buffer>();
  return (connection) => {
    let bytes = prepared.get(connection);
    if (bytes === undefined) {
      bytes = postBytes(
        url.host,
        target.path ? target.path(connection) : url.pathname + url.search,
        target.headers(connection),
        body,
      );
      prepared.set(connection, bytes);
    }
    return pool.send(bytes);
  };
}

/** Answers by status (all, and measured ones) and the measured latencies of one run. */
class Tally {
  readonly latencies: number[] = [];
  readonly statuses: Record<string, number> = {};
  readonly allStatuses: Record<string, number> = {};
  /** Latencies by the second of the measured window they were due in (open loop). */
  readonly #bySecond: number[][] = [];
  /** How late each measured request was sent (open loop). */
  readonly #late: number[] = [];
  failures = 0;

  answered(status: number): void {
    this.allStatuses[status] = (this.allStatuses[status] ?? 0) + 1;
  }

  sentLate(ms: number): void {
    this.#late.push(ms);
  }

  measured(status: number, latencyMs: number, second?: number): void {
    this.latencies.push(latencyMs);
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    if (status === 0) this.failures++;
    if (second !== undefined) (this.#bySecond[second] ??= []).push(latencyMs);
  }

  result(perSec: number): LoadResult {
    const sorted = this.latencies.sort((a, b) => a - b);
    const secondP99s = Array.from(this.#bySecond, (s = []) =>
      round(
        percentile(
          s.sort((a, b) => a - b),
          99,
        ),
      ),
    );
    return {
      requests: sorted.length,
      perSec,
      latencyMs: {
        p50: round(percentile(sorted, 50)),
        p99: round(percentile(sorted, 99)),
        mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
      },
      statuses: this.statuses,
      failures: this.failures,
      allStatuses: this.allStatuses,
      ...(secondP99s.length > 0 ? { secondP99s } : {}),
      ...(this.#late.length > 0 ? { sentLateMs: sentLate(this.#late) } : {}),
    };
  }
}

function sentLate(ms: number[]): { p99: number; max: number } {
  const sorted = ms.sort((a, b) => a - b);
  return { p99: round(percentile(sorted, 99)), max: round(sorted.at(-1)!) };
}

/** The connections of a run and the sender of the n-th connection's request over them. */
function connectTo(target: LoadTarget, connections: number) {
  const url = new URL(target.url);
  // An IPv6 hostname comes in brackets; plain http only, so port 80 unless given.
  const pool = new KeepAlivePool(url.hostname.replace(/^\[(.*)\]$/, "$1"), Number(url.port || 80), connections);
  return { pool, post: poster(target, url, pool) };
}

/** The tally of a run and its time marks: warm-up from now, then the measured window. */
function startWindow(opts: { warmupMs: number; durationMs: number }) {
  const started = performance.now();
  const measureFrom = started + opts.warmupMs;
  return { tally: new Tally(), started, measureFrom, end: measureFrom + opts.durationMs };
}

/**
 * Open-loop load at a fixed rate: request i is due at start + i / ratePerSec whatever became of the
 * earlier ones, sent over at most `connections` keep-alive connections. Its latency runs from when it
 * was due, not when it was sent, so a server that falls behind shows it in the tail (no coordinated
 * omission). Latencies are of the requests due in the measured window; `perSec` counts the answers
 * that arrived in it: below `ratePerSec`, the server (or the load tool) could not keep up.
 */
export async function runLoadAtRate(
  target: LoadTarget,
  opts: { ratePerSec: number; connections: number; warmupMs: number; durationMs: number },
): Promise<LoadResult> {
  const { pool, post } = connectTo(target, opts.connections);
  try {
    return await runAtRate((i) => post(i % opts.connections), opts);
  } finally {
    pool.close();
  }
}

/**
 * The open loop itself, for any request: `send(i)` starts request i when it is due and resolves
 * its status (0 when it failed). Timed as runLoadAtRate says.
 */
export async function runAtRate(
  send: (i: number) => Promise<number>,
  opts: { ratePerSec: number; warmupMs: number; durationMs: number },
): Promise<LoadResult> {
  const { tally, started, measureFrom, end } = startWindow(opts);
  const intervalMs = 1000 / opts.ratePerSec;
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  let answeredInWindow = 0;

  const start = (i: number, due: number): void => {
    const done = send(i).then((status) => {
      const t1 = performance.now();
      tally.answered(status);
      if (t1 >= measureFrom && t1 < end) answeredInWindow++;
      if (due >= measureFrom && due < end) tally.measured(status, t1 - due, Math.floor((due - measureFrom) / 1000));
    });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  };

  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      // Everything due by now goes out; the timer's own lateness is the load tool's, and counts.
      for (let due = started + sent * intervalMs; due <= now && due < end; due = started + sent * intervalMs) {
        if (due >= measureFrom) tally.sentLate(now - due);
        start(sent++, due);
      }
      if (started + sent * intervalMs >= end) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all(inFlight);
  return tally.result(Math.round(answeredInWindow / (opts.durationMs / 1000)));
}

/**
 * Closed-loop load: `connections` keep-alive connections, each sending its next POST as soon as
 * the previous answer is read in full, for `warmupMs` unmeasured then `durationMs` measured. The
 * same tool and settings drive every target, so their figures compare.
 */
export async function runLoad(
  target: LoadTarget,
  opts: { connections: number; warmupMs: number; durationMs: number },
): Promise<LoadResult> {
  const { pool, post } = connectTo(target, opts.connections);
  const { tally, measureFrom, end } = startWindow(opts);

  const worker = async (connection: number): Promise<void> => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end) return;
      const status = await post(connection);
      tally.answered(status);
      if (t0 >= measureFrom) tally.measured(status, performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, (_, i) => worker(i)));
  pool.close();
  const measuredMs = Math.min(performance.now(), end) - measureFrom;
  return tally.result(Math.round(tally.latencies.length / (measuredMs / 1000)));
}
