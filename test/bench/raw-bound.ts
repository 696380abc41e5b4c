import type { ThroughputResult } from "./throughput";

/** A workflow's raw operations as measured: its writes (record + index keys) and publishes (events + the start command). */
export function rawOperations(t: ThroughputResult): { writes: number; publishes: number } {
  return { writes: t.snapshotWritesPerWorkflow + t.indexWritesPerWorkflow, publishes: t.eventsPerWorkflow + 1 };
}

/**
 * The throughput a single client could reach if each workflow cost only its raw operations, its writes at the raw CAS
 * rate plus its publishes at the raw publish rate, one after the other: an upper bound, not a target the design
 * promises.
 */
export function rawBound(t: ThroughputResult, publishPerSec: number, casPerSec: number): number {
  const { writes, publishes } = rawOperations(t);
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

/** CPU by role (a run's per workflow, a raw run's per operation): nats-server's, and every other role's together. */
export function natsServerAndOthers(sample: Record<string, number>): { natsServer: number; others: number } {
  let natsServer = 0;
  let others = 0;
  for (const [role, cpu] of Object.entries(sample))
    if (role === NATS_SERVER) natsServer += cpu;
    else others += cpu;
  return { natsServer, others };
}

/**
 * What a run's writes and publishes cost made bare, at the raw runs' CPU per operation (ms per workflow): nats-server's
 * and their client's (the bench's nats.js client). Beside the run's own CPU, it tells how much of what a workflow costs
 * past its bound is nats-server's and how much the service's. Null without /proc.
 */
export function bareOperationsCpuMs(r: RoundRun): { natsServer: number; client: number } | null {
  if (!(NATS_SERVER in r.raw.cpuUsPerPublish) || !(NATS_SERVER in r.raw.cpuUsPerCas)) return null;
  const pub = natsServerAndOthers(r.raw.cpuUsPerPublish);
  const cas = natsServerAndOthers(r.raw.cpuUsPerCas);
  const { writes, publishes } = rawOperations(r);
  const of = (role: "natsServer" | "others"): number => (writes * cas[role] + publishes * pub[role]) / 1000;
  return { natsServer: of("natsServer"), client: of("others") };
}
