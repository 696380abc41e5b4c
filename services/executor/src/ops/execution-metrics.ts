import type { ExecutionEvent, ExecutionSnapshot } from "@wf/shared/execution";
import { Counter, Histogram } from "@wf/shared/metrics";

const started = new Counter({
  name: "wf_executions_started_total",
  help: "Executions that began running (their exec_started event), by trigger source.",
  labelNames: ["source"],
  registers: [],
});

const finished = new Counter({
  name: "wf_executions_finished_total",
  help: "Executions that ended (exec_completed, exec_failed, exec_cancelled, exec_interrupted), by trigger source and final status.",
  labelNames: ["source", "status"],
  registers: [],
});

const stepDuration = new Histogram({
  name: "wf_step_duration_seconds",
  help: "Duration of finished steps, from their start to their end (retries and waits included), by step type and status.",
  labelNames: ["type", "status"],
  buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800, 3600],
  registers: [],
});

export const executionMetrics = [started, finished, stepDuration];

const END_STATUS: Readonly<Record<string, string>> = {
  exec_completed: "COMPLETED",
  exec_failed: "FAILED",
  exec_cancelled: "CANCELLED",
  exec_interrupted: "INTERRUPTED",
};
const STEP_END_STATUS: Readonly<Record<string, string>> = { step_completed: "COMPLETED", step_failed: "FAILED" };

/**
 * Counts what one write of an execution's record made durable: called once per write that
 * succeeded (Committer), never per attempt, so a lost compare-and-set that is tried again counts
 * nothing twice. Events published again after a takeover were counted by their first writer.
 */
export function countCommitted(snap: ExecutionSnapshot, events: readonly ExecutionEvent[]): void {
  for (const e of events) {
    if (e.type === "exec_started") {
      started.inc({ source: snap.triggerSource });
      continue;
    }
    const end = END_STATUS[e.type];
    if (end !== undefined) {
      finished.inc({ source: snap.triggerSource, status: end });
      continue;
    }
    const stepEnd = STEP_END_STATUS[e.type];
    if (stepEnd === undefined || e.step === undefined || typeof e.data.duration !== "number") continue;
    const type = snap.steps[e.step]?.type;
    if (type !== undefined) stepDuration.observe({ type, status: stepEnd }, e.data.duration / 1000);
  }
}
