import { RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { START_LANES } from "@wf/shared/execution";
import { TIMER_DUE_HEADER } from "@wf/shared/nats";
import type { NatsServerHandle } from "@wf/testing";
import { waitFor } from "@wf/testing";
import { startRuntime, testConfig } from "../support/runtime";
import { runBounded } from "./bounded";
import { percentile, round } from "./stats";

export interface TimerBenchSizes {
  /** Timers all due at the same instant. */
  timers: number;
  /** How far ahead they are due: scheduling them all must finish well before. */
  leadMs: number;
  timeoutMs: number;
}

export const TIMER_BENCH_SIZES: TimerBenchSizes = { timers: 1_000, leadMs: 4_000, timeoutMs: 60_000 };
export const TIMER_BENCH_QUICK_SIZES: TimerBenchSizes = { timers: 200, leadMs: 2_000, timeoutMs: 30_000 };

export interface Lateness {
  n: number;
  p50: number;
  p99: number;
  max: number;
  /** Fired before their due time (must be 0). */
  early: number;
}

export interface TimerBenchResult {
  sizes: TimerBenchSizes;
  /** Durable timers (TIMER stream + the scheduler's timer consumer), due time to the fired message's arrival. */
  durable: Lateness;
  /** Baseline: the same number of in-process setTimeout timers due at one instant, in this process. */
  setTimeout: Lateness;
  /** Every timer fired exactly once. */
  allFiredOnce: boolean;
  scheduleMs: number;
}

function lateness(samples: number[]): Lateness {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
    early: sorted.filter((x) => x < 0).length,
  };
}

/**
 * Timer precision: `timers` durable timers due at one instant, fired by the scheduler's timer
 * consumer into a capture stream; lateness is the arrival time (here, a core subscription on
 * the fired subject) minus the due time. Same-run baseline: as many setTimeouts due at once.
 */
export async function runTimerBench(server: NatsServerHandle, sizes: TimerBenchSizes): Promise<TimerBenchResult> {
  const runtime = await startRuntime(testConfig(server), { executor: false, approvals: false });
  const { platform, ns } = runtime;
  try {
    const subject = `${ns}.benchtimer`;
    await platform.jsm.streams.add({
      name: `${ns}_BENCHTIMER`,
      subjects: [`${subject}.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
    });
    const arrivals = new Map<string, number[]>();
    const sub = platform.nc.subscribe(`${subject}.>`, {
      callback: (_err, msg) => {
        const due = Number(msg.headers?.get(TIMER_DUE_HEADER));
        const late = Date.now() - due;
        arrivals.set(msg.subject, [...(arrivals.get(msg.subject) ?? []), late]);
      },
    });
    await platform.nc.flush();
    const timers = platform.timers;
    const dueAt = Date.now() + sizes.leadMs;
    const t0 = performance.now();
    await runBounded(sizes.timers, 256, (i) =>
      timers.schedule({
        kind: "bench",
        id: `t${i}`,
        lane: i % START_LANES,
        dueAt,
        fire: { subject: `${subject}.${i}`, payload: { i }, msgId: `benchtimer:${ns}:${i}` },
      }),
    );
    const scheduleMs = round(performance.now() - t0);
    if (Date.now() >= dueAt)
      throw new Error(`scheduling ${sizes.timers} timers took ${scheduleMs} ms, past their due time: raise leadMs`);
    await waitFor(() => arrivals.size >= sizes.timers, {
      timeoutMs: sizes.timeoutMs,
      intervalMs: 50,
      what: `${sizes.timers} timers to fire`,
    });
    // Duplicates would arrive right behind: give them a moment before counting.
    await platform.nc.flush();
    sub.unsubscribe();
    const samples = [...arrivals.values()].map((l) => l[0]!);
    const allFiredOnce = arrivals.size === sizes.timers && [...arrivals.values()].every((l) => l.length === 1);
    return { sizes, durable: lateness(samples), setTimeout: await setTimeoutBaseline(sizes), allFiredOnce, scheduleMs };
  } finally {
    await runtime.stop();
  }
}

async function setTimeoutBaseline(sizes: TimerBenchSizes): Promise<Lateness> {
  const dueAt = Date.now() + Math.min(sizes.leadMs, 1_000);
  const samples = await Promise.all(
    Array.from(
      { length: sizes.timers },
      () => new Promise<number>((resolve) => setTimeout(() => resolve(Date.now() - dueAt), dueAt - Date.now())),
    ),
  );
  return lateness(samples);
}

export function renderTimerBench(r: TimerBenchResult): string {
  const line = (name: string, l: Lateness) =>
    `  ${name.padEnd(34)} p50 ${String(l.p50).padStart(6)} ms   p99 ${String(l.p99).padStart(6)} ms   max ${String(l.max).padStart(6)} ms   early ${l.early}`;
  return [
    `Timer precision: ${r.sizes.timers} timers due at one instant (scheduled in ${r.scheduleMs} ms, ${r.sizes.leadMs} ms ahead)`,
    line("durable timers (fired message)", r.durable),
    line("baseline: in-process setTimeout", r.setTimeout),
    `  every timer fired exactly once: ${r.allFiredOnce ? "yes" : "NO"}`,
  ].join("\n");
}
