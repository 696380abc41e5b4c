import { newId } from "@wf/shared/execution";
import { streamNames } from "@wf/shared/nats";
import { runBounded, withTimeout } from "./bounded";
import type { Completion } from "./completions";
import { cpuBetween, sampleProcesses, threadsCpuMs, type ThreadsCpu } from "./cpu";
import { messagesPer, natsMessages, type NatsMessages } from "./nats-messages";
import { starter, streamState, type Target } from "./context";
import { round, summarize, type Summary } from "./stats";
import { threeStepWorkflow, type ThroughputKind } from "./workflows";

export interface ThroughputResult {
  kind: ThroughputKind;
  n: number;
  completed: number;
  /** Terminal events other than exec_completed, or a wrong output. */
  failed: number;
  /** Executions with no terminal event within the timeout. */
  missing: number;
  allCompleted: boolean;
  /** How fast the start commands were accepted (JetStream acked). */
  firePerSec: number;
  /** Completions per second between the 10th and the 90th percentile completion: the steady state. */
  steadyPerSec: number;
  /** All completions over first publish to last completion: ramp-up and tail included. */
  overallPerSec: number;
  /** Publish to exec_completed per execution, under this load (mostly queueing). */
  latencyMs: Summary;
  /** Counted on the streams: KV record writes, index-key puts and events per workflow. */
  snapshotWritesPerWorkflow: number;
  indexWritesPerWorkflow: number;
  eventsPerWorkflow: number;
  /** Messages the NATS server received and sent per workflow, all clients' (null without its monitoring). */
  natsMessagesPerWorkflow: NatsMessages | null;
  /**
   * Bytes the streams keep per workflow, subjects and headers included: its record at rest (the bucket keeps one
   * value per key) and its events.
   */
  recordBytesPerWorkflow: number;
  eventBytesPerWorkflow: number;
  /** CPU ms per workflow of each process involved (Linux /proc; empty elsewhere): what saturates. */
  cpuMsPerWorkflow: Record<string, number>;
  /**
   * The service's (this process's) share of that by thread: its main thread, Node worker threads, and the rest, where
   * V8 compiles and collects garbage in the background (null without /proc).
   */
  serviceThreadsCpuMsPerWorkflow: ThreadsCpu | null;
  /** Write system calls of nats-server per workflow: its sockets' and its store's (null without /proc). */
  natsServerWriteCallsPerWorkflow: number | null;
  /** Wall ms per workflow over the same span: a role using more CPU than this keeps over one core busy. */
  wallMsPerWorkflow: number;
}

const STEADY_FROM = 0.1;
const STEADY_TO = 0.9;

/**
 * Benchmark 3: fires `n` start commands as fast as the client can get them acked (at most
 * `window` unacknowledged), then counts exec_completed events. Every execution is checked for
 * its terminal event and its output (3); none is waited on past `timeoutMs`.
 */
export async function runThroughput(
  t: Target,
  opts: {
    kind: ThroughputKind;
    n: number;
    warmupN: number;
    window: number;
    timeoutMs: number;
    /** Another workflow of the kind's shape (three steps, output 3) than the kind's own. */
    yaml?: string;
  },
): Promise<ThroughputResult> {
  const start = starter(t, opts.yaml ?? threeStepWorkflow(opts.kind));
  await burst(t, start, opts.warmupN, opts.window, opts.timeoutMs);

  const kvStream = `KV_${t.ns}_executions`;
  const idxStream = `KV_${t.ns}_executions_idx`;
  const evtStream = streamNames(t.ns).evt;
  const states = () => Promise.all([kvStream, idxStream, evtStream].map((s) => streamState(t.client.jsm, s)));
  const before = await states();
  const messages0 = await natsMessages(t.monitorUrl);
  const processes0 = sampleProcesses();
  const threads0 = threadsCpuMs(process.pid);
  const b = await burst(t, start, opts.n, opts.window, opts.timeoutMs);
  const processes1 = sampleProcesses();
  const threads1 = threadsCpuMs(process.pid);
  const messages1 = await natsMessages(t.monitorUrl);
  const wallMs = performance.now() - b.t0;
  const after = await states();
  const per = (i: number) => round((after[i]!.last_seq - before[i]!.last_seq) / opts.n, 2);
  const bytesPer = (i: number) => Math.round((after[i]!.bytes - before[i]!.bytes) / opts.n);

  const ok = b.completions.filter((c) => c.type === "exec_completed" && c.output === 3);
  const times = ok.map((c) => c.seenAt).sort((x, y) => x - y);
  const lo = Math.floor(STEADY_FROM * (times.length - 1));
  const hi = Math.floor(STEADY_TO * (times.length - 1));
  const steadyMs = (times[hi] ?? 0) - (times[lo] ?? 0);
  const overallMs = (times.at(-1) ?? b.t0) - b.t0;
  return {
    kind: opts.kind,
    n: opts.n,
    completed: ok.length,
    failed: b.completions.length - ok.length,
    missing: opts.n - b.completions.length,
    allCompleted: ok.length === opts.n,
    firePerSec: Math.round(opts.n / ((b.firedAt - b.t0) / 1000)),
    steadyPerSec: steadyMs > 0 ? Math.round(((hi - lo) * 1000) / steadyMs) : 0,
    overallPerSec: overallMs > 0 ? Math.round((ok.length * 1000) / overallMs) : 0,
    latencyMs: summarize(b.latencies),
    snapshotWritesPerWorkflow: per(0),
    indexWritesPerWorkflow: per(1),
    eventsPerWorkflow: per(2),
    natsMessagesPerWorkflow: messagesPer(messages0, messages1, opts.n),
    recordBytesPerWorkflow: bytesPer(0),
    eventBytesPerWorkflow: bytesPer(2),
    cpuMsPerWorkflow: cpuBetween(processes0.cpu, processes1.cpu, opts.n),
    serviceThreadsCpuMsPerWorkflow: threadsBetween(threads0, threads1, opts.n),
    natsServerWriteCallsPerWorkflow: writesBetween(
      processes0.natsServerWriteCalls,
      processes1.natsServerWriteCalls,
      opts.n,
    ),
    wallMsPerWorkflow: round(wallMs / opts.n, 2),
  };
}

function threadsBetween(before: ThreadsCpu | null, after: ThreadsCpu | null, n: number): ThreadsCpu | null {
  if (before === null || after === null) return null;
  const per = (k: keyof ThreadsCpu): number => round((after[k] - before[k]) / n, 2);
  return { mainThread: per("mainThread"), workerThreads: per("workerThreads"), otherThreads: per("otherThreads") };
}

function writesBetween(before: number | null, after: number | null, n: number): number | null {
  return before === null || after === null ? null : round((after - before) / n, 1);
}

interface Burst {
  t0: number;
  firedAt: number;
  completions: Completion[];
  latencies: number[];
}

async function burst(
  t: Target,
  start: (id: string) => Promise<string>,
  n: number,
  window: number,
  timeoutMs: number,
): Promise<Burst> {
  const ids = Array.from({ length: n }, () => newId());
  const completions: Completion[] = [];
  const latencies: number[] = [];
  const sentAt = new Array<number>(n).fill(0);
  // Registered before anything is published: no event can come before its waiter.
  const all = Promise.all(
    ids.map((id, i) =>
      t.watcher.expect(id).then((c) => {
        completions.push(c);
        latencies.push(c.seenAt - sentAt[i]!);
      }),
    ),
  );
  const t0 = performance.now();
  await withTimeout(
    runBounded(n, window, async (i) => {
      sentAt[i] = performance.now();
      await start(ids[i]!);
    }),
    timeoutMs,
    `${n} start commands to be acked`,
  );
  const firedAt = performance.now();
  try {
    await withTimeout(all, Math.max(1_000, timeoutMs - (firedAt - t0)), `${n} executions to end`);
  } catch {
    // Counted as missing by the caller; the waiters are dropped so late events go nowhere.
    for (const id of ids) t.watcher.forget(id);
  }
  return { t0, firedAt, completions, latencies };
}
