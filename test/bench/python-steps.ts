/**
 * Python steps against a bare interpreter start, on the same machine in the same run: the wall time
 * of one light Python step through the code runner (the sandbox's overhead, since the step does
 * nearly nothing), next to one child_process spawn of `python3 -c pass` and one bare fork of a
 * running `python3` (what each step's process costs the machine before it does anything, made
 * ahead of the step or on its path), sampled in alternating rounds so that all see the same load;
 * then 40 such steps in sequence, and a 40-step Python chain through the whole runtime (start
 * command to its completion event).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { NatsServerHandle } from "@wf/testing";
import { createCodeRunner, type CodeRequest } from "@wf/executor";
import { runChain, type ChainResult } from "./chain";
import { spawnOnce } from "./code-overhead";
import { openClient } from "./context";
import { zygoteFaults } from "./cpu";
import { RawNats } from "./raw-nats";
import { naiveChainMs, resolvePythonExecutable } from "./spawn-baseline";
import { round, summarize, type Summary } from "./stats";
import { withRuntime } from "./suite";

export interface PythonStepsSizes {
  /** Untimed steps and spawns first (zygote, page cache). */
  warmup: number;
  /** Alternating rounds, each of `perRound` steps, `perRound` spawns and one sequence. */
  rounds: number;
  perRound: number;
  /** Steps in a sequence, and in the runtime's chain. */
  sequence: number;
  /** Lone steps, each LONE_PAUSE_MS after the last: its spare made, the machine idle. */
  lone: number;
  chainWarmup: number;
  chainRuns: number;
  timeoutMs: number;
}

export const PYTHON_STEPS_SIZES: PythonStepsSizes = {
  warmup: 10,
  rounds: 8,
  perRound: 15,
  sequence: 40,
  lone: 30,
  chainWarmup: 2,
  chainRuns: 8,
  timeoutMs: 30_000,
};

export const PYTHON_STEPS_QUICK_SIZES: PythonStepsSizes = {
  warmup: 3,
  rounds: 2,
  perRound: 5,
  sequence: 40,
  lone: 5,
  chainWarmup: 1,
  chainRuns: 2,
  timeoutMs: 30_000,
};

export interface PythonStepsResult {
  sizes: PythonStepsSizes;
  /** The interpreter spawned bare and run by the sandbox (the runtime resolves `python3` the same way). */
  python: string;
  /** Wall ms of one `python3 -c pass` spawn, to its exit. */
  bareMs: Summary;
  /** Wall ms of one `print(1)` step through createCodeRunner().run(). */
  stepMs: Summary;
  /** Medians: step / bare. */
  ratio: number;
  /**
   * Wall ms of one fork of a running `python3 -I -B` whose child exits at once, reaped: every step's
   * process is such a fork (of the sandbox's zygote, which holds more) and its exit, whether made
   * ahead of its step (a spare) or on its path; steps in a row pay it in full.
   */
  forkMs: Summary;
  /** Medians: fork / bare: the share of `ratio` that forking alone takes on this machine. */
  forkRatio: number;
  /**
   * Minor page faults per timed step (its spare's fork and set-up included) of the zygote and of the step's process:
   * the same from run to run on one machine, where times are not. Null without /proc.
   */
  faultsPerStep: { zygote: number; steps: number } | null;
  /**
   * Wall ms of one `print(1)` step LONE_PAUSE_MS after the last one ended: its process made ahead and
   * the machine idle, what a workflow's occasional Python step waits for. Steps in a row share the CPU
   * with the making of the next ones' processes.
   */
  loneMs: Summary;
  /** Medians: lone step / bare. */
  loneRatio: number;
  /** Wall ms of `sequence` steps one after another through the code runner. */
  sequenceMs: Summary;
  /** Start command to completion event of a `sequence`-step Python chain through the runtime. */
  chain: ChainResult;
  /** `sequence` spawns of `python3 -c` in a row, each fed the previous output (the chain's naive baseline). */
  naiveChainMs: Summary;
  seconds: number;
}

/** Long enough for the next step's process to be made and the runner and zygote to be idle again (~20 ms of CPU). */
const LONE_PAUSE_MS = 150;

/** Measures, stopping whatever it started even when a step fails. */
export async function runPythonSteps(
  server: NatsServerHandle,
  sizes: PythonStepsSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void },
): Promise<PythonStepsResult> {
  const started = performance.now();
  const python = await resolvePythonExecutable();
  const path = process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin";
  const req: CodeRequest = { language: "python", code: "print(1)", vars: {}, input: null, timeoutMs: sizes.timeoutMs };
  const runner = await createCodeRunner({ pool: 1 });
  const untrack = opts.track(() => runner.close());
  const step = async (): Promise<number> => {
    const t0 = performance.now();
    const r = await runner.run(req);
    if (!r.ok || r.output !== 1) throw new Error(`a Python step failed: ${r.ok ? JSON.stringify(r.output) : r.error}`);
    return performance.now() - t0;
  };
  const bare = async (): Promise<number> => {
    const t0 = performance.now();
    await spawnOnce(python, ["-c", "pass"], path);
    return performance.now() - t0;
  };
  const steps: number[] = [];
  const spawns: number[] = [];
  const forks: number[] = [];
  const sequences: number[] = [];
  const lone: number[] = [];
  let faultsPerStep: PythonStepsResult["faultsPerStep"] = null;
  try {
    opts.progress(
      `python steps: ${sizes.rounds} rounds of ${sizes.perRound} steps, ${sizes.perRound} spawns of ${python} -c pass, ${sizes.sequence} steps in sequence`,
    );
    for (let i = 0; i < sizes.warmup; i++) {
      await step();
      await bare();
    }
    const faultsBefore = zygoteFaults();
    for (let round = 0; round < sizes.rounds; round++) {
      for (let i = 0; i < sizes.perRound; i++) steps.push(await step());
      for (let i = 0; i < sizes.perRound; i++) spawns.push(await bare());
      forks.push(...(await forkSamples(python, sizes.perRound, path)));
      let ms = 0;
      for (let i = 0; i < sizes.sequence; i++) ms += await step();
      sequences.push(ms);
    }
    const faultsAfter = zygoteFaults();
    const timed = sizes.rounds * (sizes.perRound + sizes.sequence);
    if (faultsBefore && faultsAfter)
      faultsPerStep = {
        zygote: round((faultsAfter.zygote - faultsBefore.zygote) / timed, 1),
        steps: round((faultsAfter.steps - faultsBefore.steps) / timed, 1),
      };
    for (let i = 0; i < sizes.lone; i++) {
      await new Promise((resolve) => setTimeout(resolve, LONE_PAUSE_MS));
      lone.push(await step());
    }
  } finally {
    untrack();
    await runner.close();
  }
  const chain = await runtimeChain(server, sizes, opts);
  opts.progress(`python steps: naive baseline, ${sizes.chainRuns} x ${sizes.sequence} spawns`);
  const naive: number[] = [];
  for (let i = 0; i < sizes.chainRuns; i++) naive.push(await naiveChainMs("python", sizes.sequence, python));
  const stepMs = summarize(steps);
  const bareMs = summarize(spawns);
  const forkMs = summarize(forks);
  const loneMs = summarize(lone);
  return {
    sizes,
    python,
    bareMs,
    stepMs,
    ratio: round(stepMs.median / bareMs.median, 3),
    forkMs,
    forkRatio: round(forkMs.median / bareMs.median, 3),
    faultsPerStep,
    loneMs,
    loneRatio: round(loneMs.median / bareMs.median, 3),
    sequenceMs: summarize(sequences),
    chain,
    naiveChainMs: summarize(naive),
    seconds: round((performance.now() - started) / 1000, 1),
  };
}

/**
 * Forks in a row by one `python3`, each child exiting at once and reaped before the next: wall ms
 * of each. The interpreter is started once and untimed: only its forks are.
 */
const FORKS = `import os, sys, time
out = []
for _ in range(int(sys.argv[1])):
    t = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    out.append((time.perf_counter() - t) * 1000)
print(" ".join(f"{ms:.4f}" for ms in out))`;

async function forkSamples(python: string, n: number, path: string): Promise<number[]> {
  const { stdout } = await promisify(execFile)(python, ["-I", "-B", "-c", FORKS, String(n)], {
    env: { PATH: path },
    timeout: 30_000,
  });
  const samples = stdout.trim().split(" ").map(Number);
  if (samples.length !== n || !samples.every(Number.isFinite))
    throw new Error(`python3's fork timings were not ${n} numbers: ${stdout.slice(0, 200)}`);
  return samples;
}

async function runtimeChain(
  server: NatsServerHandle,
  sizes: PythonStepsSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void },
): Promise<ChainResult> {
  const client = await openClient(server.url);
  const untrackClient = opts.track(() => client.nc.close());
  const raw = await RawNats.open(client.nc, client.js, client.jsm, `pysteps${Date.now().toString(36)}`);
  try {
    let chain: ChainResult | undefined;
    await withRuntime(server, client, {}, opts.track, async (t) => {
      opts.progress(
        `python steps: ${sizes.sequence}-step chain, ${sizes.chainWarmup} warm-up + ${sizes.chainRuns} runs`,
      );
      chain = await runChain(t, raw, {
        language: "python",
        steps: sizes.sequence,
        warmup: sizes.chainWarmup,
        runs: sizes.chainRuns,
        timeoutMs: sizes.timeoutMs,
      });
    });
    return chain!;
  } finally {
    await raw.close();
    untrackClient();
    await client.nc.close();
  }
}

const ms = (s: Summary): string => `median ${s.median.toFixed(2)} ms, p90 ${s.p90.toFixed(2)} ms (n=${s.n})`;

export function renderPythonSteps(r: PythonStepsResult): string {
  const c = r.chain;
  return [
    `Python steps against a bare interpreter start (${r.seconds} s)`,
    `  bare ${r.python} -c pass spawn:   ${ms(r.bareMs)}`,
    `  Python step (print(1)), overhead: ${ms(r.stepMs)}`,
    `  step / bare (medians):            ${r.ratio.toFixed(3)}`,
    `  bare fork of python3, reaped:     ${ms(r.forkMs)}, ${r.forkRatio.toFixed(3)} of a bare spawn (each step's process costs this much before it does anything)`,
    `  a lone step, ${LONE_PAUSE_MS} ms after the last: ${ms(r.loneMs)}, ${r.loneRatio.toFixed(3)} of a bare spawn (its process made ahead, the machine idle)`,
    `  page faults per step:             ${r.faultsPerStep ? `the zygote ${r.faultsPerStep.zygote}, the step's process ${r.faultsPerStep.steps} (each a trap to the hypervisor on a PVM guest)` : "not counted here (no /proc)"}`,
    `  ${r.sizes.sequence} Python steps in sequence:     median ${round(r.sequenceMs.median, 0)} ms, p90 ${round(r.sequenceMs.p90, 0)} ms (n=${r.sequenceMs.n}; through the code runner)`,
    `  ${r.sizes.sequence}-step Python chain, runtime:   median ${round(c.endToEndMs.median, 0)} ms, p90 ${round(c.endToEndMs.p90, 0)} ms (n=${c.endToEndMs.n}, ${c.completed}/${c.runs} completed${c.failures.length ? `; ${c.failures[0]}` : ""})`,
    `  naive: ${r.sizes.sequence} x python3 -c in a row: median ${round(r.naiveChainMs.median, 0)} ms (n=${r.naiveChainMs.n})`,
  ].join("\n");
}
