import Fastify from "fastify";
import { EXPRESSION_LIMITS, evaluateExpression, ExpressionError, type ExpressionContext } from "@wf/shared/expressions";
import { runLoadAtRate, type LoadResult } from "./api-load";
import { percentile, round } from "./stats";
import type { Progress } from "./suite";

export interface ExpressionBenchSizes {
  /** Unrelated HTTP requests to this process, open loop: each is due at its time whatever the others did. */
  ratePerSec: number;
  connections: number;
  warmupMs: number;
  /** Measured window of each of the two runs (quiet, then with hostile expressions). */
  durationMs: number;
}

export const EXPRESSION_BENCH_SIZES: ExpressionBenchSizes = {
  ratePerSec: 200,
  connections: 4,
  warmupMs: 1_000,
  durationMs: 6_000,
};
export const EXPRESSION_BENCH_QUICK_SIZES: ExpressionBenchSizes = {
  ratePerSec: 200,
  connections: 4,
  warmupMs: 300,
  durationMs: 2_500,
};

/**
 * Evaluated one at a time, back to back, through the executor's own entry point: the security
 * probe's ReDoS (2.7 s of a blocked process with a backtracking engine), a lambda that recurses
 * forever, and one built-in call that makes millions of matches. The last two run to the deadline.
 */
export const HOSTILE_EXPRESSIONS = [
  "$match($pad('', 28, 'a') & '!', /(a+)+$/)",
  "($f := function($n) { $f($n + 1) }; $f(0))",
  "$replace($pad('', 5000000, 'a'), /a/, 'b')",
] as const;

export interface Responsiveness {
  /** Latency from when each request was due to its answer. */
  http: LoadResult;
  /** How late a 10 ms interval timer of this process fired, warm-up included. */
  loopDelayMs: { p50: number; p99: number; max: number };
}

export interface ExpressionBenchResult {
  sizes: ExpressionBenchSizes;
  deadlineMs: number;
  hostile: readonly string[];
  quiet: Responsiveness;
  withHostile: Responsiveness & {
    evaluations: number;
    failedAtDeadline: number;
    completed: number;
    otherFailures: string[];
  };
  /** With hostile expressions / quiet, for the HTTP latency. */
  ratio: { p50: number; p99: number };
}

const CONTEXT: ExpressionContext = { vars: {}, steps: {}, execution: { id: "bench" }, secrets: {} };
const OWNER = "bench";

/**
 * Expression isolation: how much the latency of unrelated work on this process (HTTP requests to
 * a Fastify route, and timer lateness) suffers while hostile expressions are evaluated, against
 * the same measurement without them, in the same run.
 */
export async function runExpressionBench(
  sizes: ExpressionBenchSizes,
  opts: { progress?: Progress } = {},
): Promise<ExpressionBenchResult> {
  const progress = opts.progress ?? (() => undefined);
  const app = Fastify({ logger: false });
  app.post("/ping", async () => ({ ok: true }));
  const url = `${await app.listen({ port: 0, host: "127.0.0.1" })}/ping`;
  try {
    // Expression workers started before either run: neither pays for the first start.
    await evaluateExpression("1 + 1", CONTEXT, OWNER);
    progress(`expression isolation: ${sizes.ratePerSec} requests/s to a route of this process, quiet`);
    const quiet = await measure(url, sizes);

    progress(
      `expression isolation: the same, with hostile expressions evaluated back to back (deadline ${EXPRESSION_LIMITS.deadlineMs} ms)`,
    );
    let stop = false;
    const tally = { evaluations: 0, failedAtDeadline: 0, completed: 0, otherFailures: [] as string[] };
    const hostile = (async () => {
      for (let i = 0; !stop; i++) {
        const expression = HOSTILE_EXPRESSIONS[i % HOSTILE_EXPRESSIONS.length]!;
        tally.evaluations++;
        try {
          await evaluateExpression(expression, CONTEXT, OWNER);
          tally.completed++;
        } catch (err) {
          if (
            err instanceof ExpressionError &&
            err.message.endsWith(`took longer than ${EXPRESSION_LIMITS.deadlineMs} ms`)
          )
            tally.failedAtDeadline++;
          else tally.otherFailures.push(err instanceof Error ? err.message : String(err));
        }
      }
    })();
    const loaded = await measure(url, sizes);
    stop = true;
    await hostile;

    return {
      sizes,
      deadlineMs: EXPRESSION_LIMITS.deadlineMs,
      hostile: HOSTILE_EXPRESSIONS,
      quiet,
      withHostile: { ...loaded, ...tally },
      ratio: {
        p50: round(loaded.http.latencyMs.p50 / quiet.http.latencyMs.p50),
        p99: round(loaded.http.latencyMs.p99 / quiet.http.latencyMs.p99),
      },
    };
  } finally {
    await app.close();
  }
}

const TICK_MS = 10;

/**
 * The HTTP run, with an interval timer beside it whose lateness is recorded from the run's start
 * to its end. (monitorEventLoopDelay misses a stall that begins before its first tick, the
 * moment a run begins and a hostile expression with it.)
 */
async function measure(url: string, sizes: ExpressionBenchSizes): Promise<Responsiveness> {
  const lateness: number[] = [];
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    lateness.push(Math.max(0, now - last - TICK_MS));
    last = now;
  };
  const timer = setInterval(tick, TICK_MS);
  const http = await runLoadAtRate({ url, headers: () => ({ "content-type": "application/json" }), body: "{}" }, sizes);
  clearInterval(timer);
  tick();
  const sorted = lateness.sort((a, b) => a - b);
  return {
    http,
    loopDelayMs: { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1)!) },
  };
}

export function renderExpressionBench(r: ExpressionBenchResult): string {
  const row = (name: string, x: Responsiveness) =>
    `  ${name.padEnd(26)} p50 ${x.http.latencyMs.p50.toFixed(2).padStart(8)} ms   p99 ${x.http.latencyMs.p99.toFixed(2).padStart(8)} ms` +
    `   (n=${x.http.requests})   loop delay p99 ${x.loopDelayMs.p99.toFixed(1).padStart(6)} ms, max ${x.loopDelayMs.max.toFixed(1).padStart(6)} ms`;
  const h = r.withHostile;
  return [
    `Expression isolation: unrelated HTTP requests to this process, ${r.sizes.ratePerSec}/s open loop, ${r.sizes.durationMs / 1000} s measured per run`,
    row("quiet", r.quiet),
    row("with hostile expressions", h),
    `  ratio (with / quiet)       p50 ${r.ratio.p50.toFixed(2).padStart(8)}x     p99 ${r.ratio.p99.toFixed(2).padStart(8)}x`,
    `  hostile expressions, one at a time: ${r.hostile.map((e) => `\`${e}\``).join(", ")}`,
    `  ${h.evaluations} evaluated: ${h.failedAtDeadline} stopped at the ${r.deadlineMs} ms deadline, ${h.completed} completed, ${h.otherFailures.length} failed otherwise` +
      (h.otherFailures.length > 0 ? ` (first: ${h.otherFailures[0]})` : ""),
  ].join("\n");
}
