/**
 * The benchmarks, bundled and run by main.ts: starts a private nats-server, runs every benchmark against it with
 * baselines measured in the same run, prints the table and writes .data/bench/latest.json. BENCH_QUICK=1 runs a ~20 s
 * smoke version; BENCH_PARTS picks parts (options.ts). Everything it starts is stopped on exit, on error and on Ctrl-C;
 * a watchdog ends a run that overstays its budget.
 */
import {
  APPROVAL_LIST_BENCH_QUICK_SIZES,
  APPROVAL_LIST_BENCH_SIZES,
  renderApprovalListBench,
  runApprovalListBench,
} from "./approval-list-bench";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startNatsServer } from "@wf/testing";
import { API_BENCH_QUICK_SIZES, API_BENCH_SIZES, renderApiBench, runApiBench } from "./api-bench";
import {
  EXPRESSION_BENCH_QUICK_SIZES,
  EXPRESSION_BENCH_SIZES,
  renderExpressionBench,
  runExpressionBench,
} from "./expression-isolation";
import {
  EXPRESSION_SHARING_QUICK_SIZES,
  EXPRESSION_SHARING_SIZES,
  renderExpressionSharing,
  runExpressionSharing,
} from "./expression-sharing";
import { KEY_TIMING_QUICK_SIZES, KEY_TIMING_SIZES, renderKeyTimingBench, runKeyTimingBench } from "./key-timing";
import { LLM_OVERHEAD_QUICK_SIZES, LLM_OVERHEAD_SIZES, renderLlmOverhead, runLlmOverhead } from "./llm-overhead";
import { renderWebhookFlood, runWebhookFlood, WEBHOOK_FLOOD_QUICK_SIZES, WEBHOOK_FLOOD_SIZES } from "./webhook-flood";
import { e2eRatesFromEnv, partsFromEnv, roundsFromEnv, sizesFromEnv } from "./options";
import { analyse } from "./report";
import { render } from "./render";
import { runSuite } from "./suite";
import { renderTimerBench, runTimerBench, TIMER_BENCH_QUICK_SIZES, TIMER_BENCH_SIZES } from "./timer-bench";
import { WEBHOOK_BENCH_QUICK_SIZES, WEBHOOK_BENCH_SIZES, renderWebhookBench, runWebhookBench } from "./webhook-bench";
import { renderConsoleBundle, runConsoleBundle } from "./console-bundle";
import {
  E2E_AIM,
  renderWebhookE2e,
  runWebhookE2e,
  WEBHOOK_E2E_QUICK_SIZES,
  WEBHOOK_E2E_SIZES,
  type WebhookE2eSizes,
} from "./webhook-e2e";
import { LIST_BENCH_QUICK_SIZES, LIST_BENCH_SIZES, renderListBench, runListBench } from "./list-bench";
import { CLUSTER_BENCH_QUICK_SIZES, CLUSTER_BENCH_SIZES, renderClusterBench, runClusterBench } from "./cluster-bench";
import { READ_PATH_QUICK_SIZES, READ_PATH_SIZES, renderReadPathBench, runReadPathBench } from "./read-path";
import { PYTHON_STEPS_QUICK_SIZES, PYTHON_STEPS_SIZES, renderPythonSteps, runPythonSteps } from "./python-steps";
import { renderSweepBench, runSweepBench, SWEEP_BENCH_QUICK_SIZES, SWEEP_BENCH_SIZES } from "./sweep-bench";
import { DISK_BENCH_QUICK_SIZES, DISK_BENCH_SIZES, renderDiskBench, runDiskBench } from "./disk-bench";
import { DEBUG_BENCH_QUICK_SIZES, DEBUG_BENCH_SIZES, renderDebugBench, runDebugBench } from "./debug-bench";
import { CODE_SIZE_QUICK_SIZES, CODE_SIZE_SIZES, renderCodeSize, runCodeSize } from "./code-size";
import { PAYLOAD_QUICK_SIZES, PAYLOAD_SIZES, renderPayload, runPayload } from "./payload";

const OUTPUT = process.env.BENCH_OUTPUT ?? fileURLToPath(new URL("../../.data/bench/latest.json", import.meta.url));
/** The module the benchmarks ran from: their bundle (main.ts), whose figures are those of the code as it ships. */
const RUNS_FROM = fileURLToPath(import.meta.url);
const BUDGET_MS = { quick: 280_000, full: 1_380_000 };
/** What each round past a part's default adds to the budget (BENCH_ROUNDS): the suite's, code size's and the flood's. */
const ROUND_BUDGET_MS = 150_000;
const CLOSE_TIMEOUT_MS = 15_000;

/** What to close, newest first; each entry removes itself once closed normally. */
const closers = new Set<() => Promise<void>>();
function track(close: () => Promise<void>): () => void {
  closers.add(close);
  return () => closers.delete(close);
}

async function closeAll(): Promise<void> {
  for (const close of [...closers].reverse()) {
    closers.delete(close);
    await Promise.race([close().catch(() => undefined), new Promise((r) => setTimeout(r, CLOSE_TIMEOUT_MS))]);
  }
}

let exiting = false;
function abort(reason: string, code: number): void {
  if (exiting) return;
  exiting = true;
  console.error(`\nbench: ${reason}; stopping`);
  void closeAll().finally(() => process.exit(code));
}

async function main(): Promise<void> {
  const { quick, sizes: defaults } = sizesFromEnv();
  const rounds = roundsFromEnv();
  const sizes = rounds === undefined ? defaults : { ...defaults, throughputRounds: rounds };
  const budgetMs =
    (quick ? BUDGET_MS.quick : BUDGET_MS.full) +
    Math.max(0, (rounds ?? 0) - defaults.throughputRounds) * ROUND_BUDGET_MS;
  process.once("SIGINT", () => abort("interrupted", 130));
  process.once("SIGTERM", () => abort("terminated", 143));
  // Connections closed under a running part reject in places nobody awaits any more.
  process.on("unhandledRejection", (err) => {
    if (exiting) return;
    console.error(err);
    abort("unhandled rejection", 1);
  });
  const watchdog = setTimeout(() => abort(`over its ${budgetMs / 1000} s budget`, 1), budgetMs);
  watchdog.unref();

  // Monitoring on: the end-to-end part counts the messages a workflow costs.
  const server = await startNatsServer({ monitor: true });
  track(() => server.stop());
  console.error(`bench: nats-server ${server.version} at ${server.url}${quick ? " (quick)" : ""}`);
  const { parts, edgeEnv } = partsFromEnv();
  const progress = (line: string) => console.error(`bench: ${line}`);
  const result = parts.has("suite") ? analyse(await runSuite(server, sizes, { quick, track, progress })) : undefined;
  const api = parts.has("api")
    ? await runApiBench(server, quick ? API_BENCH_QUICK_SIZES : API_BENCH_SIZES, { track, progress, edgeEnv })
    : undefined;
  const webhook = parts.has("webhook")
    ? await runWebhookBench(server, quick ? WEBHOOK_BENCH_QUICK_SIZES : WEBHOOK_BENCH_SIZES, {
        track,
        progress,
        edgeEnv,
      })
    : undefined;
  if (parts.has("timers")) progress("timer precision");
  const timers = parts.has("timers")
    ? await runTimerBench(server, quick ? TIMER_BENCH_QUICK_SIZES : TIMER_BENCH_SIZES)
    : undefined;
  const llm = parts.has("llm")
    ? await runLlmOverhead(server, quick ? LLM_OVERHEAD_QUICK_SIZES : LLM_OVERHEAD_SIZES, { track, progress })
    : undefined;
  if (parts.has("auth")) progress("API key timing");
  const auth = parts.has("auth")
    ? await runKeyTimingBench(server, quick ? KEY_TIMING_QUICK_SIZES : KEY_TIMING_SIZES)
    : undefined;
  const expressions = parts.has("expressions")
    ? await runExpressionBench(quick ? EXPRESSION_BENCH_QUICK_SIZES : EXPRESSION_BENCH_SIZES, { progress })
    : undefined;
  const expressionSharing = parts.has("expressions")
    ? await runExpressionSharing(quick ? EXPRESSION_SHARING_QUICK_SIZES : EXPRESSION_SHARING_SIZES, { progress })
    : undefined;
  if (parts.has("debug")) progress("debugger: breakpoints that never hit, pause round trips");
  const debug = parts.has("debug")
    ? await runDebugBench(server, quick ? DEBUG_BENCH_QUICK_SIZES : DEBUG_BENCH_SIZES)
    : undefined;
  if (parts.has("console")) progress("console bundle: building it and a bare React app");
  const consoleBundle = parts.has("console") ? await runConsoleBundle() : undefined;
  const rates = e2eRatesFromEnv();
  const withRates = <T extends { rates: number[] }>(sizes: T): T => (rates ? { ...sizes, rates } : sizes);
  // The listing service's run only when its rate is among those picked; the yielding executor's at
  // the highest picked, when the executor could fall behind there (above the end-to-end aim's rate).
  const extraRunsAtRates = (sizes: WebhookE2eSizes, picked: number[] | undefined): WebhookE2eSizes => {
    if (!picked) return sizes;
    const highest = Math.max(...picked);
    const yielding = sizes.yielding && highest > E2E_AIM.completedPerSec ? { ratePerSec: highest } : undefined;
    const listing = sizes.listing && picked.includes(sizes.listing.ratePerSec) ? sizes.listing : undefined;
    return { ...sizes, yielding, listing };
  };
  const e2e = parts.has("e2e")
    ? await runWebhookE2e(
        server,
        extraRunsAtRates(withRates(quick ? WEBHOOK_E2E_QUICK_SIZES : WEBHOOK_E2E_SIZES), rates),
        {
          progress,
          track,
          serviceEnv: edgeEnv,
        },
      )
    : undefined;
  const flood = parts.has("flood")
    ? await runWebhookFlood(
        server,
        { ...(quick ? WEBHOOK_FLOOD_QUICK_SIZES : WEBHOOK_FLOOD_SIZES), ...(rounds ? { rounds } : {}) },
        {
          progress,
          track,
          serviceEnv: edgeEnv,
        },
      )
    : undefined;
  const cluster = parts.has("cluster")
    ? await runClusterBench(server, withRates(quick ? CLUSTER_BENCH_QUICK_SIZES : CLUSTER_BENCH_SIZES), {
        progress,
        track,
      })
    : undefined;
  const reads = parts.has("reads")
    ? await runReadPathBench(server, quick ? READ_PATH_QUICK_SIZES : READ_PATH_SIZES, { progress, track })
    : undefined;
  const lists = parts.has("lists")
    ? await runListBench(server, quick ? LIST_BENCH_QUICK_SIZES : LIST_BENCH_SIZES, progress)
    : undefined;
  const approvalLists = parts.has("lists")
    ? await runApprovalListBench(server, quick ? APPROVAL_LIST_BENCH_QUICK_SIZES : APPROVAL_LIST_BENCH_SIZES, progress)
    : undefined;
  const pythonSteps = parts.has("python-steps")
    ? await runPythonSteps(server, quick ? PYTHON_STEPS_QUICK_SIZES : PYTHON_STEPS_SIZES, { progress, track })
    : undefined;
  const sweep = parts.has("sweep")
    ? await runSweepBench(server, quick ? SWEEP_BENCH_QUICK_SIZES : SWEEP_BENCH_SIZES, { progress, track })
    : undefined;
  const disk = parts.has("disk")
    ? await runDiskBench(server, quick ? DISK_BENCH_QUICK_SIZES : DISK_BENCH_SIZES, { progress, track })
    : undefined;
  const codeSize = parts.has("code-size")
    ? await runCodeSize(
        server,
        { ...(quick ? CODE_SIZE_QUICK_SIZES : CODE_SIZE_SIZES), ...(rounds ? { rounds } : {}) },
        { progress, track },
      )
    : undefined;
  const payload = parts.has("payload")
    ? await runPayload(server, quick ? PAYLOAD_QUICK_SIZES : PAYLOAD_SIZES, { progress, track })
    : undefined;
  await mkdir(dirname(OUTPUT), { recursive: true });
  await writeFile(
    OUTPUT,
    `${JSON.stringify({ runsFrom: RUNS_FROM, ...result, api, webhook, timers, llm, auth, expressions, expressionSharing, debug, consoleBundle, lists, approvalLists, e2e, flood, cluster, reads, pythonSteps, sweep, disk, codeSize, payload }, null, 2)}
`,
  );
  if (result) console.log(render(result));
  if (api) console.log(`\n${renderApiBench(api)}`);
  if (webhook) console.log(`\n${renderWebhookBench(webhook)}`);
  if (timers) console.log(`\n${renderTimerBench(timers)}`);
  if (llm) console.log(`\n${renderLlmOverhead(llm)}`);
  if (auth) console.log(`\n${renderKeyTimingBench(auth)}`);
  if (expressions) console.log(`\n${renderExpressionBench(expressions)}`);
  if (expressionSharing) console.log(`\n${renderExpressionSharing(expressionSharing)}`);
  if (debug) console.log(`\n${renderDebugBench(debug)}`);
  if (consoleBundle) console.log(`\n${renderConsoleBundle(consoleBundle)}`);
  if (lists) console.log(`\n${renderListBench(lists)}`);
  if (approvalLists) console.log(`\n${renderApprovalListBench(approvalLists)}`);
  if (e2e) console.log(`\n${renderWebhookE2e(e2e, server.version)}`);
  if (flood) console.log(`\n${renderWebhookFlood(flood)}`);
  if (cluster) console.log(`\n${renderClusterBench(cluster)}`);
  if (reads) console.log(`\n${renderReadPathBench(reads)}`);
  if (pythonSteps) console.log(`\n${renderPythonSteps(pythonSteps)}`);
  if (sweep) console.log(`\n${renderSweepBench(sweep)}`);
  if (disk) console.log(`\n${renderDiskBench(disk)}`);
  if (codeSize) console.log(`\n${renderCodeSize(codeSize)}`);
  if (payload) console.log(`\n${renderPayload(payload)}`);
  console.log(`\nresults: ${OUTPUT}`);
  clearTimeout(watchdog);
  await closeAll();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    // After Ctrl-C, parts fail on connections closed under them: that is not news.
    if (exiting) return;
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    abort("failed", 1);
  },
);
