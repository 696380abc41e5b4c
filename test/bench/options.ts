/** How much work each benchmark does. Every wait is bounded by one of the timeouts below. */
export interface BenchSizes {
  /** Steps of the sequential chains (the published comparison uses 40). */
  chainSteps: number;
  /** Untimed runs first: JIT, isolate pool, zygote and KV caches warm up. */
  chainWarmup: number;
  chainRuns: number;
  /** Python runs are ~3x longer; fewer of them keep the whole run within its budget. */
  pythonRuns: number;
  /** Samples of the naive spawn baseline (each sample is `chainSteps` spawns). */
  spawnSamples: number;
  chainTimeoutMs: number;
  /** Workflows fired in the sustained-throughput benchmark. */
  throughputN: number;
  throughputWarmupN: number;
  /** Start commands awaiting their JetStream ack at once. */
  publishWindow: number;
  throughputConcurrency: number;
  throughputTimeoutMs: number;
  /** Raw JetStream publishes for baseline (a). */
  rawPublishN: number;
  /** Raw KV CAS baseline (b): keys updated concurrently, updates per key in sequence. */
  casKeys: number;
  casUpdatesPerKey: number;
  /** Whether to also measure the transform-only variant of the throughput benchmark. */
  throughputTransform: boolean;
}

export const DEFAULT_SIZES: BenchSizes = {
  chainSteps: 40,
  chainWarmup: 3,
  chainRuns: 20,
  pythonRuns: 12,
  spawnSamples: 5,
  chainTimeoutMs: 30_000,
  throughputN: 3_000,
  throughputWarmupN: 200,
  publishWindow: 512,
  throughputConcurrency: 256,
  throughputTimeoutMs: 60_000,
  rawPublishN: 30_000,
  casKeys: 64,
  casUpdatesPerKey: 150,
  throughputTransform: true,
};

/** BENCH_QUICK=1: a smoke run of ~20 s; its figures are indicative only. */
export const QUICK_SIZES: BenchSizes = {
  chainSteps: 40,
  chainWarmup: 1,
  chainRuns: 3,
  pythonRuns: 2,
  spawnSamples: 1,
  chainTimeoutMs: 20_000,
  throughputN: 500,
  throughputWarmupN: 50,
  publishWindow: 256,
  throughputConcurrency: 256,
  throughputTimeoutMs: 20_000,
  rawPublishN: 5_000,
  casKeys: 32,
  casUpdatesPerKey: 50,
  throughputTransform: true,
};

export function sizesFromEnv(env: NodeJS.ProcessEnv = process.env): { quick: boolean; sizes: BenchSizes } {
  const quick = env.BENCH_QUICK === "1" || env.BENCH_QUICK === "true";
  return { quick, sizes: quick ? QUICK_SIZES : DEFAULT_SIZES };
}
