/**
 * What a JavaScript step's data costs: one step through the code runner (createCodeRunner, as the executor runs it)
 * whose input holds `kilobytes` of JSON records, its output either their count (`count`) or the records again (`echo`),
 * next to the least that moving that data from one process to another takes: a JSON round trip of it in this process
 * (JSON.stringify, then JSON.parse), one for the input and, for `echo`, one more for the output. Then the same records
 * through the whole runtime: sustained 3-step JavaScript workflows passing them from step to step, where the executor
 * also masks, measures, records and publishes every output.
 */
import { createCodeRunner, type CodeRequest, type CodeRunner } from "@wf/executor";
import type { NatsServerHandle } from "@wf/testing";
import { sample } from "./code-overhead";
import { cpuBetween, sampleProcesses } from "./cpu";
import { cpuText } from "./render";
import { round, summarize, type Summary } from "./stats";
import { withRuntimeAndClient } from "./suite";
import { runThroughput, type ThroughputResult } from "./throughput";

export interface PayloadSizes {
  /** The inputs' sizes, in KiB of JSON. */
  kilobytes: number[];
  warmup: number;
  /** Each case's samples stop at this many, or once this long has passed with at least `minRuns`. */
  maxRuns: number;
  minRuns: number;
  budgetMs: number;
  timeoutMs: number;
  /** KiB of JSON records each workflow passes from step to step; workflows of each size per run, and warm-up. */
  workflowKilobytes: number[];
  workflowN: number;
  workflowWarmupN: number;
}

export const PAYLOAD_SIZES: PayloadSizes = {
  kilobytes: [1, 100, 1024, 4096],
  warmup: 3,
  maxRuns: 200,
  minRuns: 10,
  budgetMs: 3_000,
  timeoutMs: 30_000,
  workflowKilobytes: [1, 16, 180],
  workflowN: 1_500,
  workflowWarmupN: 60,
};

export const PAYLOAD_QUICK_SIZES: PayloadSizes = {
  kilobytes: [1, 256],
  warmup: 1,
  maxRuns: 10,
  minRuns: 3,
  budgetMs: 500,
  timeoutMs: 30_000,
  workflowKilobytes: [16],
  workflowN: 60,
  workflowWarmupN: 10,
};

export type PayloadShape = "count" | "echo";

const CODE: Record<PayloadShape, string> = {
  count: "return input.items.length",
  echo: "return input.items",
};

export interface PayloadCase {
  kilobytes: number;
  shape: PayloadShape;
  /** Characters of the input's JSON. */
  inputChars: number;
  /** Wall time of one step through the code runner. */
  stepMs: Summary;
  /** Wall time of the JSON round trips of the same data in this process. */
  baselineMs: Summary;
  /** The medians' ratio, step / baseline. */
  ratio: number;
  /** CPU ms per step of each process: this one (the executor's end) and the runners (the JavaScript host's). */
  cpuMsPerStep: Record<string, number>;
}

export interface PayloadWorkflows {
  kilobytes: number;
  /** Records in each step's output. */
  records: number;
  run: ThroughputResult;
}

export interface PayloadResult {
  sizes: PayloadSizes;
  seconds: number;
  cases: PayloadCase[];
  workflows: PayloadWorkflows[];
}

/** Records of the kind a workflow passes along (ids, titles, numbers, tags), `kilobytes` KiB of them as JSON. */
export function payloadOf(kilobytes: number): { items: unknown[] } {
  const items: unknown[] = [];
  for (let i = 0, chars = 0; chars < kilobytes * 1024; i++) {
    const item = { id: `item-${i}`, title: `Item ${i}, as a title of a few words`, score: i * 1.5, tags: ["a", "b"] };
    items.push(item);
    chars += JSON.stringify(item).length + 1;
  }
  return { items };
}

/**
 * Three JavaScript steps: the first makes `records` records as payloadOf does (the same JSON), the second passes them
 * on, the third answers 3 if all of them arrived (the throughput part's check of a workflow's output).
 */
export function payloadWorkflow(records: number): string {
  const record =
    '({ id: "item-" + i, title: "Item " + i + ", as a title of a few words", score: i * 1.5, tags: ["a", "b"] })';
  const make = `return Array.from({ length: ${records} }, (_, i) => ${record})`;
  return [
    `name: bench-3-payload-${records}`,
    "steps:",
    "  - name: s1",
    "    type: code",
    "    language: javascript",
    `    code: '${make}'`,
    "  - name: s2",
    "    type: code",
    "    language: javascript",
    '    input: "{{ steps.s1.output }}"',
    "    code: return input",
    "  - name: s3",
    "    type: code",
    "    language: javascript",
    '    input: "{{ steps.s2.output }}"',
    `    code: 'return input.length === ${records} && input.at(-1).id === "item-${records - 1}" ? 3 : 0'`,
    "",
  ].join("\n");
}

export async function runPayload(
  server: NatsServerHandle,
  sizes: PayloadSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void },
): Promise<PayloadResult> {
  const started = performance.now();
  const runner = await createCodeRunner();
  const untrack = opts.track(() => runner.close());
  const cases: PayloadCase[] = [];
  try {
    for (const kilobytes of sizes.kilobytes) {
      const input = payloadOf(kilobytes);
      const inputChars = JSON.stringify(input).length;
      for (const shape of ["count", "echo"] as const) {
        opts.progress(`payload: ${kilobytes} KiB in, ${shape}`);
        cases.push({ ...(await runCase(runner, sizes, kilobytes, shape, input)), inputChars });
      }
    }
  } finally {
    untrack();
    await runner.close();
  }
  const workflows = await runWorkflows(server, sizes, opts);
  return { sizes, seconds: round((performance.now() - started) / 1000, 1), cases, workflows };
}

async function runWorkflows(
  server: NatsServerHandle,
  sizes: PayloadSizes,
  opts: { progress: (line: string) => void; track: (close: () => Promise<void>) => () => void },
): Promise<PayloadWorkflows[]> {
  const out: PayloadWorkflows[] = [];
  await withRuntimeAndClient(server, { WF_EXEC_CONCURRENCY: "256" }, opts.track, async (t) => {
    for (const kilobytes of sizes.workflowKilobytes) {
      const records = payloadOf(kilobytes).items.length;
      opts.progress(`payload: ${sizes.workflowN} x 3-step JavaScript workflows passing ${kilobytes} KiB of records`);
      const run = await runThroughput(t, {
        kind: "javascript",
        n: sizes.workflowN,
        warmupN: sizes.workflowWarmupN,
        window: 64,
        timeoutMs: 120_000,
        yaml: payloadWorkflow(records),
      });
      out.push({ kilobytes, records, run });
    }
  });
  return out;
}

async function runCase(
  runner: CodeRunner,
  sizes: PayloadSizes,
  kilobytes: number,
  shape: PayloadShape,
  input: { items: unknown[] },
): Promise<Omit<PayloadCase, "inputChars">> {
  const req: CodeRequest = { language: "javascript", code: CODE[shape], vars: {}, input, timeoutMs: sizes.timeoutMs };
  const count = input.items.length;
  const step = async (): Promise<void> => {
    const r = await runner.run(req);
    if (!r.ok) throw new Error(`payload: a ${kilobytes} KiB ${shape} step failed: ${r.error}`);
    // By count: comparing every echo's records would time the comparison.
    const answered = shape === "count" ? r.output : Array.isArray(r.output) ? r.output.length : null;
    if (answered !== count) throw new Error(`payload: a ${kilobytes} KiB ${shape} step answered another output`);
  };
  const trips = shape === "echo" ? 2 : 1;
  const baseline = (): Promise<void> => {
    let value: unknown = input;
    for (let i = 0; i < trips; i++) value = JSON.parse(JSON.stringify(value)) as unknown;
    return Promise.resolve();
  };
  for (let i = 0; i < sizes.warmup; i++) {
    await step();
    await baseline();
  }
  const timed = { warmup: 0, runs: sizes.maxRuns, min: sizes.minRuns, budgetMs: sizes.budgetMs };
  const before = sampleProcesses();
  const stepMs = await sample(step, timed);
  const after = sampleProcesses();
  const baselineMs = await sample(baseline, timed);
  const s = summarize(stepMs);
  const b = summarize(baselineMs);
  return {
    kilobytes,
    shape,
    stepMs: s,
    baselineMs: b,
    ratio: round(s.median / b.median, 2),
    cpuMsPerStep: cpuBetween(before.cpu, after.cpu, stepMs.length),
  };
}

export function renderPayload(r: PayloadResult): string {
  const lines = [
    `JavaScript step payloads through the code runner, against JSON round trips of the same data in one process (${r.seconds} s)`,
    "  count: `return input.items.length` (a small output); echo: `return input.items` (the input's records out again)",
    "  baseline: JSON.stringify then JSON.parse of the data, once per direction it travels (count 1, echo 2)",
    "  input     shape  step median   step p90  baseline median  step / baseline  CPU ms per step",
  ];
  for (const c of r.cases) {
    const cpu = Object.entries(c.cpuMsPerStep)
      .filter(([, ms]) => ms > 0)
      .map(([role, ms]) => `${role} ${ms}`)
      .join(", ");
    lines.push(
      `  ${`${c.kilobytes} KiB`.padEnd(9)} ${c.shape.padEnd(5)}  ${ms(c.stepMs.median).padStart(11)}  ${ms(c.stepMs.p90).padStart(9)}  ${ms(c.baselineMs.median).padStart(15)}  ${c.ratio.toFixed(2).padStart(15)}  ${cpu} (n=${c.stepMs.n})`,
    );
  }
  lines.push(
    "",
    "Workflows passing those records from step to step through the runtime (3 JavaScript steps: make, pass on, count)",
    "  per step   workflows/s  all completed  CPU ms per workflow",
  );
  for (const w of r.workflows) {
    const threads = w.run.serviceThreadsCpuMsPerWorkflow;
    const main = threads ? ` (its main thread ${threads.mainThread.toFixed(2)})` : "";
    lines.push(
      `  ${`${w.kilobytes} KiB`.padEnd(9)} ${w.run.steadyPerSec.toLocaleString("en-US").padStart(12)}  ${(w.run.allCompleted ? "yes" : "NO").padEnd(13)}  ${cpuText(w.run.cpuMsPerWorkflow)}${main}`,
    );
  }
  return lines.join("\n");
}

const ms = (x: number): string => `${x.toFixed(2)} ms`;
