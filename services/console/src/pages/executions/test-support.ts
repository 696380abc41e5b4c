import type { StepStatus, StepView } from "../../api/types";

/** A step's view as the console API sends it, for tests: `status`, and what `more` sets. */
export function stepView(status: StepStatus, more: Partial<StepView> = {}): StepView {
  return {
    status,
    output: null,
    error: null,
    attempts: 1,
    duration: null,
    startedAt: 1,
    completedAt: null,
    usage: null,
    reused: false,
    edited: false,
    pinned: false,
    artifacts: [],
    approvalId: null,
    childExecutionId: null,
    edits: [],
    ...more,
  };
}
