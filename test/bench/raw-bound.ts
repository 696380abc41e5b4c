import type { ThroughputResult } from "./throughput";

/**
 * The throughput a single client could reach if each workflow cost only its measured writes
 * (record + index keys) at the raw CAS rate plus its publishes (events + the start command) at
 * the raw publish rate, one after the other: an upper bound, not a target the design promises.
 */
export function rawBound(t: ThroughputResult, publishPerSec: number, casPerSec: number): number {
  const writes = t.snapshotWritesPerWorkflow + t.indexWritesPerWorkflow;
  const publishes = t.eventsPerWorkflow + 1;
  return Math.round(1 / (writes / casPerSec + publishes / publishPerSec));
}

/** A throughput run and the raw rates measured beside it (the mean of those just before and just after), which its ratios are to. */
export type RoundRun = ThroughputResult & { raw: { publishPerSec: number; casPerSec: number } };

/** The raw bound of a run at the raw rates measured beside it. */
export function rawBoundOf(r: RoundRun): number {
  return rawBound(r, r.raw.publishPerSec, r.raw.casPerSec);
}
