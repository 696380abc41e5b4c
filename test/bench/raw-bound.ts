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

/** The means of raw measurements: their rates, and each process role's CPU per operation. */
export interface RawMeans {
  publishPerSec: number;
  casPerSec: number;
  cpuUsPerPublish: Record<string, number>;
  cpuUsPerCas: Record<string, number>;
}

/** A throughput run and the raw rates measured beside it (the mean of those just before and just after), which its ratios are to. */
export type RoundRun = ThroughputResult & { raw: RawMeans };

/** The raw bound of a run at the raw rates measured beside it. */
export function rawBoundOf(r: RoundRun): number {
  return rawBound(r, r.raw.publishPerSec, r.raw.casPerSec);
}

/** The role of nats-server in CPU samples (cpu.ts); every other role is a client's or the service's. */
const NATS_SERVER = "nats-server";

/**
 * What a run's writes and publishes cost made bare, at the raw runs' CPU per operation (ms per workflow): nats-server's
 * and their client's (the bench's nats.js client). Beside the run's own CPU, it tells how much of what a workflow costs
 * past its bound is nats-server's and how much the service's. Null without /proc.
 */
export function bareOperationsCpuMs(r: RoundRun): { natsServer: number; client: number } | null {
  const { cpuUsPerPublish: pub, cpuUsPerCas: cas } = r.raw;
  if (!(NATS_SERVER in pub) || !(NATS_SERVER in cas)) return null;
  const writes = r.snapshotWritesPerWorkflow + r.indexWritesPerWorkflow;
  const publishes = r.eventsPerWorkflow + 1;
  const of = (role: (sample: Record<string, number>) => number): number =>
    (writes * role(cas) + publishes * role(pub)) / 1000;
  const others = (sample: Record<string, number>): number =>
    Object.entries(sample).reduce((sum, [role, us]) => (role === NATS_SERVER ? sum : sum + us), 0);
  return { natsServer: of((s) => s[NATS_SERVER]!), client: of(others) };
}

/** A run's own CPU per workflow (ms): nats-server's, and every other process's together. */
export function runCpuMs(r: RoundRun): { natsServer: number; others: number } {
  let natsServer = 0;
  let others = 0;
  for (const [role, ms] of Object.entries(r.cpuMsPerWorkflow))
    if (role === NATS_SERVER) natsServer += ms;
    else others += ms;
  return { natsServer, others };
}
