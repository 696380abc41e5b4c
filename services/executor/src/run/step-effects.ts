import { childSteps, stepLineage, stepTypeSpec, type Step, type Workflow } from "@wf/shared/workflow";
import type { StepState } from "@wf/shared/execution";
import { writesResultOnly } from "./steps/code";

/**
 * Whether a step acts outside the service (a process, a model, a tool server): its start is
 * written before it runs and its result at once. JavaScript and TypeScript reach nothing outside
 * their isolate, so they count as pure, as transforms and containers do.
 */
export function actsOutside(step: Step): boolean {
  return (stepTypeSpec(step.type)?.externalEffects ?? false) && !writesResultOnly(step);
}

/**
 * Whether a step's run writes the record before anything it does outlives this process: one that acts outside writes
 * its start, a gate its approval's id, a `workflow` step its child's id (its start published after). That write
 * carries the result of an outside step just before it, nothing durable done in between. A `wait` is not one: its
 * timer is armed before the park's write, and a crash between the two would find the outside step in flight.
 */
export function writesBeforeActing(step: Step): boolean {
  return actsOutside(step) || step.manual_approval !== undefined || step.type === "workflow";
}

/**
 * Whether a step may start with an outside step's result still unwritten (RunCommitter.oweWrite): one that acts
 * outside writes it with its start, before it acts; a container leaves it to its own steps.
 */
export function carriesOwedWrite(step: Step): boolean {
  return actsOutside(step) || childSteps(step).length > 0;
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
