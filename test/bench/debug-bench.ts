import { sendDebugCommand, startExecution } from "@wf/shared/client";
import { DebugRequest, newId, type BreakpointInput, type ExecutionEvent } from "@wf/shared/execution";
import { subjects } from "@wf/shared/nats";
import type { NatsServerHandle } from "@wf/testing";
import { definitionOf, startRuntime, testConfig, type InProcessRuntime } from "../support/runtime";
import { withTimeout } from "./bounded";
import { round, summarize, type Summary } from "./stats";
import { chainWorkflow } from "./workflows";

export interface DebugBenchSizes {
  /** Steps of the chain run with and without breakpoints. */
  steps: number;
  /** Runs of each kind, interleaved. */
  runs: number;
  /** Pause → resume round trips measured. */
  roundTrips: number;
  timeoutMs: number;
}

export const DEBUG_BENCH_SIZES: DebugBenchSizes = { steps: 40, runs: 15, roundTrips: 40, timeoutMs: 60_000 };
export const DEBUG_BENCH_QUICK_SIZES: DebugBenchSizes = { steps: 10, runs: 3, roundTrips: 5, timeoutMs: 30_000 };

export interface DebugBenchResult {
  sizes: DebugBenchSizes;
  /** Start command to exec_completed, without a debug request. */
  plainMs: Summary;
  /** The same chain as a debug run with one breakpoint of each of the 9 types, none of which hits. */
  nineMissesMs: Summary;
  /** Median with breakpoints / median without (aim: under 1.10). */
  ratio: number;
  /** `continue` sent (claim + publish) to its `debug_resumed` event at the client. */
  roundTripMs: Summary;
}

/** One of each type, each about something the chain never does: the cost of evaluating them is all they add. */
function nineMisses(): BreakpointInput[] {
  return [
    { type: "before_step", step: "absent" },
    { type: "after_step", step: "absent" },
    { type: "on_error", step: "absent" },
    { type: "conditional", expression: "vars.never = true" },
    { type: "watch", expression: "vars.constant" },
    { type: "foreach_item", step: "absent" },
    { type: "on_retry", step: "absent" },
    { type: "tool_call", step: "absent" },
    { type: "usage", tokens: 1_000_000_000 },
  ];
}

/** Events of one execution, as the client sees them. */
function eventsOf(rt: InProcessRuntime, executionId: string) {
  const seen: ExecutionEvent[] = [];
  const waiters: Array<{ type: string; after: number; resolve: (e: ExecutionEvent & { seenAt: number }) => void }> = [];
  const sub = rt.platform.nc.subscribe(subjects(rt.ns).eventFilter({ executionId }), {
    callback: (_err, msg) => {
      const e = msg.json<ExecutionEvent>();
      const seenAt = performance.now();
      seen.push(e);
      for (const w of [...waiters]) {
        if (w.type === e.type && seen.length > w.after) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve({ ...e, seenAt });
        }
      }
    },
  });
  return {
    /** The next event of `type` from now on. */
    next: (type: string) =>
      new Promise<ExecutionEvent & { seenAt: number }>((resolve) =>
        waiters.push({ type, after: seen.length, resolve }),
      ),
    close: () => sub.unsubscribe(),
  };
}

async function timedRun(
  rt: InProcessRuntime,
  yaml: string,
  debug: DebugRequest | undefined,
  timeoutMs: number,
): Promise<number> {
  const definition = definitionOf(yaml);
  const id = newId();
  const events = eventsOf(rt, id);
  try {
    const done = events.next("exec_completed");
    const t0 = performance.now();
    await startExecution(rt.platform.js, rt.ns, {
      executionId: id,
      workflow: { id: `wf-${definition.name}`, name: definition.name, ownerId: "bench", version: null, definition },
      inputs: {},
      triggerSource: "console",
      enableMonitoring: false,
      ...(debug ? { debug } : {}),
    });
    const end = await withTimeout(done, timeoutMs, `debug bench run ${id}`);
    return end.seenAt - t0;
  } finally {
    events.close();
  }
}

/**
 * The debugger's costs: a run whose breakpoints never hit against the same run without any
 * (interleaved, same machine, same moment), and the round trip of a command at a pause.
 */
export async function runDebugBench(server: NatsServerHandle, sizes: DebugBenchSizes): Promise<DebugBenchResult> {
  const rt = await startRuntime(testConfig(server, { LOG_LEVEL: "error" }), { scheduler: true });
  try {
    const chain = chainWorkflow("javascript", sizes.steps).replace(/^name: .*$/m, `name: bench-debug-chain`);
    const variables = chain.replace(
      "steps:\n",
      "variables:\n  constant: { type: number, default: 1 }\n  never: { type: boolean, default: false }\nsteps:\n",
    );
    const nine = DebugRequest.parse({ breakpoints: nineMisses() });
    const plain: number[] = [];
    const misses: number[] = [];
    for (let i = 0; i < 2; i++) await timedRun(rt, variables, nine, sizes.timeoutMs);
    for (let i = 0; i < sizes.runs; i++) {
      plain.push(await timedRun(rt, variables, undefined, sizes.timeoutMs));
      misses.push(await timedRun(rt, variables, nine, sizes.timeoutMs));
    }
    const plainMs = summarize(plain);
    const nineMissesMs = summarize(misses);
    return {
      sizes,
      plainMs,
      nineMissesMs,
      ratio: round(nineMissesMs.median / plainMs.median, 3),
      roundTripMs: await roundTrips(rt, sizes),
    };
  } finally {
    await rt.stop();
  }
}

async function roundTrips(rt: InProcessRuntime, sizes: DebugBenchSizes): Promise<Summary> {
  const steps = Array.from(
    { length: sizes.roundTrips + 1 },
    (_, i) => `  - { name: s${i}, type: transform, output: ${i} }`,
  );
  const yaml = `name: bench-debug-pauses\nsteps:\n${steps.join("\n")}\n`;
  const definition = definitionOf(yaml);
  const id = newId();
  const events = eventsOf(rt, id);
  const samples: number[] = [];
  try {
    // Paused before every step but the first: each `continue` runs one step to the next pause.
    const breakpoints = Array.from({ length: sizes.roundTrips }, (_, i) => ({
      type: "before_step" as const,
      step: `s${i + 1}`,
    }));
    let paused = events.next("debug_paused");
    await startExecution(rt.platform.js, rt.ns, {
      executionId: id,
      workflow: { id: "wf-bench-debug-pauses", name: definition.name, ownerId: "bench", version: null, definition },
      inputs: {},
      triggerSource: "console",
      enableMonitoring: false,
      debug: DebugRequest.parse({ breakpoints }),
    });
    for (let i = 0; i < sizes.roundTrips; i++) {
      const pause = await withTimeout(paused, sizes.timeoutMs, `pause ${i} of ${id}`);
      const resumed = events.next("debug_resumed");
      paused = events.next("debug_paused");
      const t0 = performance.now();
      const sent = await sendDebugCommand(rt.platform.js, rt.platform.store, rt.ns, id, String(pause.data.id), {
        command: "continue",
        body: {},
        by: "bench",
      });
      if (!sent.ok) throw new Error(`continue at pause ${i} refused: ${sent.message}`);
      samples.push((await withTimeout(resumed, sizes.timeoutMs, `resume ${i} of ${id}`)).seenAt - t0);
    }
  } finally {
    events.close();
  }
  return summarize(samples);
}

export function renderDebugBench(r: DebugBenchResult): string {
  const ms = (s: Summary) => `median ${round(s.median)} ms  p90 ${round(s.p90)} ms  (n=${s.n})`;
  return [
    `debugger (${r.sizes.steps} JavaScript steps, ${r.sizes.runs} runs of each, interleaved)`,
    `  without a debug request           ${ms(r.plainMs)}`,
    `  9 breakpoints that never hit      ${ms(r.nineMissesMs)}`,
    `  ratio ${r.ratio} (aim < 1.10: ${r.ratio < 1.1 ? "met" : "NOT met"})`,
    `  pause → continue → debug_resumed  ${ms(r.roundTripMs)} (aim p50 < 5 ms: ${r.roundTripMs.median < 5 ? "met" : "NOT met"})`,
  ].join("\n");
}
