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
 * Whether a step's attempt writes the record before anything it does outlives this process: one that acts outside
 * writes its start, a `workflow` step its child's id (its start published after). A `workflow` step replayed with its
 * child's id writes nothing first: it writes a result owed to it (RunCommitter.writeOwed) before it starts that child
 * again or arms again the timer of its put-off start.
 */
function attemptWritesFirst(step: Step): boolean {
  return actsOutside(step) || step.type === "workflow";
}

/**
 * Whether a step's run writes the record before anything it does outlives this process: its attempt does
 * (attemptWritesFirst), or its gate, the approval's id. That write carries the result of an outside step just before
 * it, nothing durable done in between. A `wait` is not one: its timer is armed before the park's write, and a crash
 * between the two would find the outside step in flight.
 */
export function writesBeforeActing(step: Step): boolean {
  return attemptWritesFirst(step) || step.manual_approval !== undefined;
}

/**
 * Whether a step's attempt may start with an outside step's result still unwritten (RunCommitter.oweWrite): one whose
 * attempt writes the record first (attemptWritesFirst) writes it there, before it acts; a container leaves it to its
 * own steps. A gate, passed before the attempt, writes it with its approval's id.
 */
export function carriesOwedWrite(step: Step): boolean {
  return attemptWritesFirst(step) || childSteps(step).length > 0;
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
