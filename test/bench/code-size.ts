/**
 * What a workflow's code size costs: sustained 3-step JavaScript workflows whose steps hold a few characters of code,
 * against the same workflows whose steps hold `padChars` more (comment lines, quotes and newlines in them, as real
 * code has), in rounds on one runtime, the two taking turns. Where the rate falls with the size, per-run or per-start
 * work grows with the code: the CPU per workflow of each process and the bytes a workflow leaves stored say where.
 */
import type { NatsServerHandle } from "@wf/testing";
import { cpuText } from "./render";
import { median, round } from "./stats";
import { withRuntimeAndClient } from "./suite";
import { runThroughput, type ThroughputResult } from "./throughput";
import { JS_STEP_CODE, threeStepWorkflowWith } from "./workflows";

export interface CodeSizeSizes {
  n: number;
  warmupN: number;
  /** Runs of each, taking turns (light, long, light, ...): the medians are compared. */
  rounds: number;
  /** Characters added to each step's code. */
  padChars: number;
  window: number;
  concurrency: number;
  timeoutMs: number;
}

export const CODE_SIZE_SIZES: CodeSizeSizes = {
  n: 3_000,
  warmupN: 200,
  rounds: 3,
  padChars: 10_000,
  window: 512,
  concurrency: 256,
  timeoutMs: 60_000,
};

export const CODE_SIZE_QUICK_SIZES: CodeSizeSizes = { ...CODE_SIZE_SIZES, n: 300, warmupN: 50, rounds: 1 };

export interface CodeSizeResult {
  sizes: CodeSizeSizes;
  /** Characters of each long step's code. */
  longCodeChars: number;
  light: ThroughputResult[];
  long: ThroughputResult[];
}

/** The benchmark's step, then comment lines up to `padChars` more characters. */
export function longStepCode(padChars: number): string {
  const lines = [JS_STEP_CODE + ";"];
  let chars = 0;
  for (let i = 1; chars < padChars; i++) {
    const line = `// ${i}: "what a real step explains" about its input, and why it does what it does.`;
    lines.push(line);
    chars += line.length + 1;
  }
  return lines.join("\n");
}

export async function runCodeSize(
  server: NatsServerHandle,
  sizes: CodeSizeSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void },
): Promise<CodeSizeResult> {
  const code = longStepCode(sizes.padChars);
  const yaml = threeStepWorkflowWith(code);
  const result: CodeSizeResult = { sizes, longCodeChars: code.length, light: [], long: [] };
  const env = { WF_EXEC_CONCURRENCY: String(sizes.concurrency) };
  await withRuntimeAndClient(server, env, opts.track, async (t) => {
    const common = { kind: "javascript" as const, n: sizes.n, warmupN: sizes.warmupN, window: sizes.window };
    for (let r = 1; r <= sizes.rounds; r++) {
      const of = `round ${r} of ${sizes.rounds}`;
      opts.progress(`code size: ${sizes.n} x 3-step JavaScript workflows, light steps (${of})`);
      result.light.push(await runThroughput(t, { ...common, timeoutMs: sizes.timeoutMs }));
      opts.progress(`code size: the same, ${code.length} characters of code per step (${of})`);
      result.long.push(await runThroughput(t, { ...common, timeoutMs: sizes.timeoutMs, yaml }));
    }
  });
  return result;
}

/** The run whose steady rate is the median (the lower middle one of an even count). */
function medianRun(runs: ThroughputResult[]): ThroughputResult {
  const sorted = [...runs].sort((a, b) => a.steadyPerSec - b.steadyPerSec);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

export function renderCodeSize(r: CodeSizeResult): string {
  const line = (label: string, runs: ThroughputResult[]): string[] => {
    const m = medianRun(runs);
    const all = runs.every((x) => x.allCompleted) ? "all completed" : "NOT ALL COMPLETED";
    return [
      `  ${label}: rounds ${runs.map((x) => `${x.steadyPerSec.toLocaleString("en-US")}/s`).join(", ")}; median ${m.steadyPerSec.toLocaleString("en-US")}/s, ${all}`,
      `    CPU ms per workflow (the median run): ${cpuText(m.cpuMsPerWorkflow)}`,
      `    stored per workflow: its record ${m.recordBytesPerWorkflow.toLocaleString("en-US")} B at rest, its events ${m.eventBytesPerWorkflow.toLocaleString("en-US")} B`,
    ];
  };
  const rate = (runs: ThroughputResult[]): number => median(runs.map((x) => x.steadyPerSec).sort((a, b) => a - b));
  return [
    `Code size (sustained 3-step JavaScript workflows, ${r.sizes.n} a run, ${r.light.length} round(s), the two taking turns)`,
    ...line("light steps (a line of code each)", r.light),
    ...line(`${r.longCodeChars.toLocaleString("en-US")} characters of code per step`, r.long),
    `  the long steps' rate over the light ones' (medians): ${round(rate(r.long) / Math.max(1, rate(r.light)), 2)}`,
  ].join("\n");
}
