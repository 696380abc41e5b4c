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
  /**
   * Throughput runs of each kind, interleaved (JavaScript, transform, JavaScript, ...) on one
   * runtime: the median one is reported. One run on a shared VM moved by a third either way.
   */
  throughputRounds: number;
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
  /** Code-step overhead per language (code-overhead.ts). */
  codeOverhead: CodeOverheadSizes;
}

export interface CodeOverheadSizes {
  /** Untimed steps per language first (isolate pool and JIT, zygote, page cache). */
  warmup: number;
  /** Timed steps per language, unless `budgetMs` runs out first. */
  runs: number;
  /** Untimed, then timed spawns of each bare command, unless `bareBudgetMs` runs out first. */
  bareWarmup: number;
  bareRuns: number;
  /** Timed samples taken whatever the budget, so that a slow language still has a median. */
  minRuns: number;
  /** Wall-time cap of one language's timed steps (its warm-up gets a quarter of it). */
  budgetMs: number;
  /** Wall-time cap of one bare command's timed spawns. */
  bareBudgetMs: number;
  /** Spawns of `python3` through PATH (a pyenv shim here), to show what resolving it saves. */
  shimRuns: number;
  /** Timeout of each step. */
  timeoutMs: number;
  /** Local runner processes (runs go to the least busy; sequential runs all go to the first). */
  pool: number;
}

/**
 * Each language costs at most its warm-up (a quarter of `budgetMs`) + `budgetMs` + `bareBudgetMs`,
 * past the minimum samples: ~20-30 s for the seven by default, ~4-5 s quick (measured ~20 s and ~4 s).
 */
export const CODE_OVERHEAD_SIZES: CodeOverheadSizes = {
  warmup: 20,
  runs: 300,
  bareWarmup: 3,
  bareRuns: 40,
  minRuns: 10,
  budgetMs: 2_500,
  bareBudgetMs: 1_500,
  shimRuns: 5,
  timeoutMs: 10_000,
  pool: 1,
};

export const CODE_OVERHEAD_QUICK_SIZES: CodeOverheadSizes = {
  warmup: 5,
  runs: 40,
  bareWarmup: 1,
  bareRuns: 10,
  minRuns: 5,
  budgetMs: 300,
  bareBudgetMs: 200,
  shimRuns: 2,
  timeoutMs: 10_000,
  pool: 1,
};

export const DEFAULT_SIZES: BenchSizes = {
  chainSteps: 40,
  chainWarmup: 3,
  chainRuns: 20,
  pythonRuns: 12,
  spawnSamples: 5,
  chainTimeoutMs: 30_000,
  throughputN: 3_000,
  throughputWarmupN: 200,
  throughputRounds: 3,
  publishWindow: 512,
  throughputConcurrency: 256,
  throughputTimeoutMs: 60_000,
  rawPublishN: 30_000,
  casKeys: 64,
  casUpdatesPerKey: 150,
  throughputTransform: true,
  codeOverhead: CODE_OVERHEAD_SIZES,
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
  throughputRounds: 1,
  publishWindow: 256,
  throughputConcurrency: 256,
  throughputTimeoutMs: 20_000,
  rawPublishN: 5_000,
  casKeys: 32,
  casUpdatesPerKey: 50,
  throughputTransform: true,
  codeOverhead: CODE_OVERHEAD_QUICK_SIZES,
};

export function sizesFromEnv(env: NodeJS.ProcessEnv = process.env): { quick: boolean; sizes: BenchSizes } {
  const quick = env.BENCH_QUICK === "1" || env.BENCH_QUICK === "true";
  return { quick, sizes: quick ? QUICK_SIZES : DEFAULT_SIZES };
}

export const BENCH_PARTS = [
  "suite",
  "api",
  "webhook",
  "timers",
  "llm",
  "auth",
  "expressions",
  "debug",
  "console",
  "lists",
  "e2e",
  "flood",
  "cluster",
  "reads",
  "python-steps",
  "sweep",
  "disk",
  "code-size",
  "payload",
] as const;
export type BenchPart = (typeof BENCH_PARTS)[number];

/**
 * BENCH_PARTS=webhook (or api, suite, timers, llm, auth, expressions, debug, console, lists, e2e, flood, cluster,
 * reads, python-steps, sweep, disk, code-size, payload, comma-separated) runs only those parts; all by default.
 * BENCH_EDGE_CPU_PROF=<dir> makes the edge processes of the api and webhook parts (and the e2e part's service) write a
 * V8 CPU profile there, to see where a request's time goes under load.
 */
export function partsFromEnv(env: NodeJS.ProcessEnv = process.env): {
  parts: ReadonlySet<BenchPart>;
  edgeEnv?: Record<string, string>;
} {
  const named = (env.BENCH_PARTS ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const unknown = named.filter((p) => !(BENCH_PARTS as readonly string[]).includes(p));
  if (unknown.length > 0)
    throw new Error(`BENCH_PARTS: unknown part(s) ${unknown.join(", ")}; known: ${BENCH_PARTS.join(", ")}`);
  const parts = new Set<BenchPart>(named.length > 0 ? (named as BenchPart[]) : BENCH_PARTS);
  const dir = env.BENCH_EDGE_CPU_PROF;
  return dir ? { parts, edgeEnv: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` } } : { parts };
}

/**
 * BENCH_E2E_RATES=1000 (or 500,1000,5000) picks the e2e and cluster parts' trigger rates per
 * second, in either mode: a quick run at the rate under study, rather than the default's three.
 */
export function e2eRatesFromEnv(env: NodeJS.ProcessEnv = process.env): number[] | undefined {
  const text = env.BENCH_E2E_RATES?.trim();
  if (!text) return undefined;
  const rates = text.split(",").map((r) => Number(r.trim()));
  if (rates.some((r) => !Number.isInteger(r) || r <= 0))
    throw new Error(`BENCH_E2E_RATES: ${JSON.stringify(text)} is not a comma-separated list of positive whole numbers`);
  return rates;
}

/** The most rounds BENCH_ROUNDS may ask for: each costs the flood about 100 s (2-vCPU guest, 2026-12-05). */
const MAX_ROUNDS = 15;

/**
 * BENCH_ROUNDS=7 runs the parts that go in rounds (the suite's sustained runs, the flood, code size) that many times,
 * rather than their default three, whose median is taken: on a noisy machine a median of three moved by 5–10 points of
 * the raw bound from one run to the next (2026-12-05).
 */
export function roundsFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = env.BENCH_ROUNDS?.trim();
  if (!text) return undefined;
  const rounds = Number(text);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > MAX_ROUNDS)
    throw new Error(`BENCH_ROUNDS: ${JSON.stringify(text)} is not a whole number from 1 to ${MAX_ROUNDS}`);
  return rounds;
}
