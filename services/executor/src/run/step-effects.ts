import { stepLineage, stepTypeSpec, type Step, type Workflow } from "@wf/shared/workflow";
import type { StepState } from "@wf/shared/execution";
import { writesResultOnly } from "./steps/code";

/**
 * How long the results of pure steps may wait in memory for a write: what a crash makes run
 * again, and how far a watcher's view may lag a run of quick steps.
 */
export const PURE_RUN_WRITE_MS = 1_000;

/**
 * Whether a step acts outside the service (a process, a model, a tool server): its start is
 * written before it runs and its result at once. JavaScript and TypeScript reach nothing outside
 * their isolate, so they count as pure, as transforms and containers do.
 */
export function actsOutside(step: Step): boolean {
  return (stepTypeSpec(step.type)?.externalEffects ?? false) && !writesResultOnly(step);
}

/**
 * Whether a recorded RUNNING attempt may have acted outside the service when its holder died:
 * such an attempt is interrupted or run again, never silently taken as not begun.
 */
export function mayHaveActed(workflow: Workflow, st: StepState): boolean {
  if (st.status !== "RUNNING" || st.attempts === 0 || st.retryAt !== null) return false;
  const step = stepLineage(workflow.steps, st.name)?.step;
  return step === undefined || actsOutside(step);
}
