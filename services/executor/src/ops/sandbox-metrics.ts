import { Gauge, Histogram } from "@wf/shared/metrics";

const runners = new Gauge({
  name: "wf_sandbox_runners",
  help: "Sandbox runners the executor sends code runs to: the runner processes it forks (WF_SANDBOX_POOL), or 1 for a standalone runner (WF_SANDBOX_SOCKET).",
  registers: [],
});

const inFlight = new Gauge({
  name: "wf_sandbox_runs_in_flight",
  help: "Code step runs sent to a sandbox runner, or queued for one, and not finished.",
  registers: [],
});

const waits = new Histogram({
  name: "wf_sandbox_run_wait_seconds",
  help: "How long code runs that found every slot of their runner taken (JavaScript and TypeScript runs: 64 per runner; process runs: twice the process steps it runs at once) waited for one; its count is the number of such waits.",
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  registers: [],
});

export const sandboxMetrics = [runners, inFlight, waits];

/** The use of the executor's sandbox runner pool (code/runner.ts, code/runner-connection.ts). */
export const sandboxPool = {
  opened: (size: number) => runners.inc(size),
  closed: (size: number) => runners.dec(size),
  runStarted: () => inFlight.inc(),
  runEnded: () => inFlight.dec(),
  waited: (seconds: number) => waits.observe(seconds),
};
