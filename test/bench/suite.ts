import { cpus, loadavg } from "node:os";
import type { NatsServerHandle } from "@wf/testing";
import { startRuntime, testConfig, type InProcessRuntime } from "../support/runtime";
import { runChain, type ChainResult } from "./chain";
import { runCodeOverhead, type CodeOverheadResult } from "./code-overhead";
import { openClient, openTarget, type Client, type Target } from "./context";
import type { BenchSizes } from "./options";
import { RawNats } from "./raw-nats";
import { naiveChainMs, resolvePythonExecutable } from "./spawn-baseline";
import { cpuBetween, sampleCpu } from "./cpu";
import { rawBoundOf, type RawMeans, type RoundRun } from "./raw-bound";
import { round, summarize, type Summary } from "./stats";
import { runThroughput } from "./throughput";
import type { ChainLanguage, ThroughputKind } from "./workflows";

export interface RawRates {
  publishPerSec: number;
  casPerSec: number;
  publishMessages: number;
  casUpdates: number;
  casKeys: number;
  /** CPU µs per publish and per CAS update of each process role (the client, nats-server); {} without /proc. */
  cpuUsPerPublish: Record<string, number>;
  cpuUsPerCas: Record<string, number>;
}

export interface Measurements {
  startedAt: string;
  finishedAt: string;
  seconds: number;
  quick: boolean;
  sizes: BenchSizes;
  machine: {
    cpus: number;
    cpuModel: string;
    node: string;
    natsServer: string;
    loadavgStart: number[];
    loadavgEnd: number[];
  };
  /**
   * Raw rates measured before each throughput round and after each of its runs, in order, and their means (of the
   * CPU per operation, each role's).
   */
  raw: { rounds: RawRates[] } & RawMeans;
  naiveSpawnMs: Record<ChainLanguage, Summary>;
  chains: Record<ChainLanguage, ChainResult>;
  /**
   * Of each kind, the round whose share of its raw bound is the median, and every round's steady
   * rate and share in the order run.
   */
  throughput: {
    javascript: RoundRun;
    transform: RoundRun | null;
    rounds: Record<ThroughputKind, { steadyPerSec: number; share: number }[]>;
  };
  /** Wall time of one light code step per language through createCodeRunner, next to a bare interpreter start. */
  codeOverhead: CodeOverheadResult;
}

export type Progress = (line: string) => void;

/**
 * Runs every benchmark against `server`, each part on a runtime of its own (fresh namespace),
 * stopping what it started even when a part throws. `track` receives everything to close, so
 * that an interrupted run (Ctrl-C) can still close it.
 */
export async function runSuite(
  server: NatsServerHandle,
  sizes: BenchSizes,
  opts: { quick: boolean; progress?: Progress; track?: (close: () => Promise<void>) => () => void },
): Promise<Measurements> {
  const progress = opts.progress ?? (() => undefined);
  const track = opts.track ?? (() => () => undefined);
  const started = Date.now();
  const loadavgStart = loadavg().map((x) => round(x, 2));

  const client = await openClient(server.url);
  const untrackClient = track(() => client.close());
  const raw = await RawNats.open(client.nc, client.js, client.jsm, `bench${Date.now().toString(36)}`);
  const untrackRaw = track(() => raw.close());
  try {
    const python = await resolvePythonExecutable();

    // Code steps alone, first, on a quiet machine: a code runner of its own, no NATS.
    const codeOverhead = await runCodeOverhead(sizes.codeOverhead, { python, progress, track });

    // Chains: one execution at a time, default executor settings.
    const chains = {} as Record<ChainLanguage, ChainResult>;
    const naiveSpawnMs = {} as Record<ChainLanguage, Summary>;
    await withRuntime(server, client, {}, track, async (t) => {
      for (const language of ["javascript", "python"] as const) {
        progress(
          `${language}: ${sizes.chainSteps}-step chain, ${sizes.chainWarmup} warm-up + ${language === "python" ? sizes.pythonRuns : sizes.chainRuns} runs`,
        );
        chains[language] = await runChain(t, raw, {
          language,
          steps: sizes.chainSteps,
          warmup: sizes.chainWarmup,
          runs: language === "python" ? sizes.pythonRuns : sizes.chainRuns,
          timeoutMs: sizes.chainTimeoutMs,
        });
        progress(`${language}: naive spawn baseline, ${sizes.spawnSamples} x ${sizes.chainSteps} spawns`);
        await naiveChainMs(language, 2, python); // the first spawn pays page-cache misses
        const samples: number[] = [];
        for (let i = 0; i < sizes.spawnSamples; i++)
          samples.push(await naiveChainMs(language, sizes.chainSteps, python));
        naiveSpawnMs[language] = summarize(samples);
      }
    });

    // Throughput: many executions at once, each kind in turn, in rounds, with the raw rates measured before, between
    // and after the kinds of a round. The machine's speed drifts within a run, and a measurement of the raw rates alone
    // moved by up to 1.7x from one to the next (2026-12-04): each run's ratio is to the mean of the two beside it.
    const rounds: RawRates[] = [];
    const runs: Record<ThroughputKind, RoundRun[]> = { javascript: [], transform: [] };
    const kinds: ThroughputKind[] = sizes.throughputTransform ? ["javascript", "transform"] : ["javascript"];
    const env = { WF_EXEC_CONCURRENCY: String(sizes.throughputConcurrency) };
    await withRuntime(server, client, env, track, async (t) => {
      const common = {
        n: sizes.throughputN,
        warmupN: sizes.throughputWarmupN,
        window: sizes.publishWindow,
        timeoutMs: sizes.throughputTimeoutMs,
      };
      // Untimed: the first raw run pays for its client's JIT and the streams' first writes.
      progress("raw JetStream publish and KV CAS rates (warm-up)");
      await rawRates(raw, sizes);
      for (let round = 1; round <= sizes.throughputRounds; round++) {
        const of = `round ${round} of ${sizes.throughputRounds}`;
        progress(`raw JetStream publish and KV CAS rates (${of})`);
        let before = await rawRates(raw, sizes);
        rounds.push(before);
        for (const kind of kinds) {
          progress(`throughput: ${sizes.throughputN} x 3-step ${kind} workflows (${of})`);
          const result = await runThroughput(t, { kind, ...common });
          progress(`raw JetStream publish and KV CAS rates (${of}, after ${kind})`);
          const after = await rawRates(raw, sizes);
          rounds.push(after);
          runs[kind].push({ ...result, raw: meanRates([before, after]) });
          before = after;
        }
      }
    });

    return {
      startedAt: new Date(started).toISOString(),
      finishedAt: new Date().toISOString(),
      seconds: round((Date.now() - started) / 1000, 1),
      quick: opts.quick,
      sizes,
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? "unknown",
        node: process.version,
        natsServer: server.version,
        loadavgStart,
        loadavgEnd: loadavg().map((x) => round(x, 2)),
      },
      raw: { rounds, ...meanRates(rounds) },
      naiveSpawnMs,
      chains,
      throughput: {
        javascript: medianRun(runs.javascript),
        transform: runs.transform.length > 0 ? medianRun(runs.transform) : null,
        rounds: { javascript: runs.javascript.map(shareOf), transform: runs.transform.map(shareOf) },
      },
      codeOverhead,
    };
  } finally {
    untrackRaw();
    await raw.close();
    untrackClient();
    await client.close();
  }
}

function shareOf(r: RoundRun): { steadyPerSec: number; share: number } {
  return { steadyPerSec: r.steadyPerSec, share: round(r.steadyPerSec / rawBoundOf(r), 2) };
}

/** The run whose share of its raw bound is the median (the lower middle one of an even count). */
function medianRun(runs: RoundRun[]): RoundRun {
  const sorted = [...runs].sort((a, b) => shareOf(a).share - shareOf(b).share);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function meanRates(rates: readonly RawRates[]): RawMeans {
  return {
    publishPerSec: Math.round(mean(rates.map((r) => r.publishPerSec))),
    casPerSec: Math.round(mean(rates.map((r) => r.casPerSec))),
    cpuUsPerPublish: meanByRole(rates.map((r) => r.cpuUsPerPublish)),
    cpuUsPerCas: meanByRole(rates.map((r) => r.cpuUsPerCas)),
  };
}

/** The mean of each role's figure over the samples that have it. */
function meanByRole(samples: readonly Record<string, number>[]): Record<string, number> {
  const roles = new Set(samples.flatMap((s) => Object.keys(s)));
  return Object.fromEntries(
    [...roles].map((role) => [role, round(mean(samples.flatMap((s) => (role in s ? [s[role]!] : []))), 2)]),
  );
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
}

async function rawRates(raw: RawNats, sizes: BenchSizes): Promise<RawRates> {
  const before = sampleCpu();
  const pub = await raw.publishRate(sizes.rawPublishN, sizes.publishWindow);
  const between = sampleCpu();
  const cas = await raw.casRate(sizes.casKeys, sizes.casUpdatesPerKey);
  const after = sampleCpu();
  return {
    publishPerSec: pub.perSec,
    casPerSec: cas.perSec,
    publishMessages: pub.messages,
    casUpdates: cas.updates,
    casKeys: cas.keys,
    // Milliseconds per thousand operations: microseconds each.
    cpuUsPerPublish: cpuBetween(before, between, pub.messages / 1000),
    cpuUsPerCas: cpuBetween(between, after, cas.updates / 1000),
  };
}

/** withRuntime with a client of its own, closed after it. */
export async function withRuntimeAndClient(
  server: NatsServerHandle,
  env: Record<string, string>,
  track: (close: () => Promise<void>) => () => void,
  body: (t: Target) => Promise<void>,
): Promise<void> {
  const client = await openClient(server.url);
  const untrack = track(() => client.close());
  try {
    await withRuntime(server, client, env, track, body);
  } finally {
    untrack();
    await client.close();
  }
}

export async function withRuntime(
  server: NatsServerHandle,
  client: Client,
  env: Record<string, string>,
  track: (close: () => Promise<void>) => () => void,
  body: (t: Target) => Promise<void>,
): Promise<void> {
  const rt: InProcessRuntime = await startRuntime(testConfig(server, env));
  const untrack = track(() => rt.stop());
  let target: Target | undefined;
  try {
    target = await openTarget(client, rt, server.monitorUrl);
    await body(target);
  } finally {
    target?.watcher.close();
    untrack();
    await rt.stop();
  }
}
