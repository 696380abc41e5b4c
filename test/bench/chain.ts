import { newId } from "@wf/shared/execution";
import { streamNames } from "@wf/shared/nats";
import { withTimeout } from "./bounded";
import { cpuBetween, sampleCpu } from "./cpu";
import { lastSeq, starter, type Target } from "./context";
import type { RawNats } from "./raw-nats";
import { round, summarize, type Summary } from "./stats";
import { chainWorkflow, type ChainLanguage } from "./workflows";

export interface ChainResult {
  language: ChainLanguage;
  steps: number;
  warmup: number;
  runs: number;
  /** Publish of the start command to the exec_completed event at the client (ms). */
  endToEndMs: Summary;
  samplesMs: number[];
  /** The executor's own startedAt-to-completedAt, from the event: the rest is queueing and delivery. */
  executorMs: Summary;
  completed: number;
  allCompleted: boolean;
  failures: string[];
  /** Snapshot writes (KV record writes) and events per run, counted on the streams. */
  writesPerRun: number;
  eventsPerRun: number;
  snapshotBytes: { first: number; last: number };
  /** Baseline (c), sampled between the runs so both see the same machine load. */
  floorMs: Summary;
  /** CPU ms per run of each process involved (floor samples included in the service's share). */
  cpuMsPerRun: Record<string, number>;
}

/**
 * Benchmarks 1 and 2: one execution at a time of a chain of `steps` code steps, timed from the
 * start command's publish to its exec_completed event reaching the client. The stored snapshot
 * is checked (untimed) after each run: the event is only published after the COMPLETED write.
 */
export async function runChain(
  t: Target,
  raw: RawNats,
  opts: { language: ChainLanguage; steps: number; warmup: number; runs: number; timeoutMs: number },
): Promise<ChainResult> {
  const { language, steps } = opts;
  const start = starter(t, chainWorkflow(language, steps));
  const failures: string[] = [];

  const once = async (): Promise<{ ms: number; executorMs: number | null; id: string } | null> => {
    const id = newId();
    const done = t.watcher.expect(id);
    const t0 = performance.now();
    await start(id);
    try {
      const c = await withTimeout(done, opts.timeoutMs, `${language} chain ${id}`);
      const snap = await t.rt.platform.store.executions.get(id);
      if (c.type !== "exec_completed" || c.output !== steps || snap?.value.status !== "COMPLETED") {
        failures.push(
          `${id}: ${c.type} output=${JSON.stringify(c.output)} snapshot=${snap?.value.status} ${c.error ?? ""}`,
        );
        return null;
      }
      return { ms: c.seenAt - t0, executorMs: c.duration, id };
    } catch (err) {
      t.watcher.forget(id);
      failures.push(`${id}: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  };

  let lastId: string | undefined;
  for (let i = 0; i < opts.warmup; i++) lastId = (await once())?.id ?? lastId;
  const snapshotBytes = await snapshotSizes(t, lastId);
  const floorBytes = Math.round((snapshotBytes.first + snapshotBytes.last) / 2);
  // Warm the floor's path too, so its first sample is not a cold one.
  await raw.durableStepsFloor(`w${language}`, steps, floorBytes);

  const kvStream = `KV_${t.ns}_executions`;
  const evtStream = streamNames(t.ns).evt;
  const [kv0, evt0] = await Promise.all([lastSeq(t.client.jsm, kvStream), lastSeq(t.client.jsm, evtStream)]);
  const samples: number[] = [];
  const executor: number[] = [];
  const floor: number[] = [];
  const cpu0 = sampleCpu();
  for (let i = 0; i < opts.runs; i++) {
    floor.push(await raw.durableStepsFloor(`${language}${i}`, steps, floorBytes));
    const r = await once();
    if (r) {
      samples.push(r.ms);
      if (r.executorMs !== null) executor.push(r.executorMs);
    }
  }
  const cpu1 = sampleCpu();
  const [kv1, evt1] = await Promise.all([lastSeq(t.client.jsm, kvStream), lastSeq(t.client.jsm, evtStream)]);

  return {
    language,
    steps,
    warmup: opts.warmup,
    runs: opts.runs,
    endToEndMs: summarize(samples),
    samplesMs: samples.map((x) => round(x, 1)),
    executorMs: summarize(executor),
    completed: samples.length,
    allCompleted: samples.length === opts.runs && failures.length === 0,
    failures,
    writesPerRun: round((kv1 - kv0) / opts.runs, 1),
    eventsPerRun: round((evt1 - evt0) / opts.runs, 1),
    snapshotBytes,
    floorMs: summarize(floor),
    cpuMsPerRun: cpuBetween(cpu0, cpu1, opts.runs),
  };
}

/** Sizes of a run's first snapshot (before any step) and its last: the floor writes their mean. */
async function snapshotSizes(t: Target, id: string | undefined): Promise<{ first: number; last: number }> {
  const v = id ? await t.rt.platform.store.executions.get(id) : null;
  if (!v) return { first: 2_000, last: 2_000 };
  const last = JSON.stringify(v.value).length;
  const first = JSON.stringify({ ...v.value, steps: {}, outbox: [], output: undefined }).length;
  return { first, last };
}
