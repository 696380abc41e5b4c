import type { ConsoleExecutionView, ConsoleStepView } from "@wf/shared/api";
import {
  TERMINAL_STATUSES,
  waitingPoints,
  type DebugEdit,
  type ExecutionSnapshot,
  type StepState,
} from "@wf/shared/execution";
import { executionSummary } from "./execution";

/** GET /api/console/executions/{id} (docs/api.md, Console API). */
export function consoleExecutionView(s: ExecutionSnapshot): ConsoleExecutionView {
  const pause = s.debug?.pause ?? null;
  return {
    ...executionSummary(s),
    // The v1 view keeps RUNNING: PAUSED is the console's word for a run waiting on its debugger.
    status: pause !== null && !TERMINAL_STATUSES.has(s.status) ? "PAUSED" : s.status,
    debug: s.debug !== null,
    pause,
    ...waitingPoints(s),
    breakpoints: s.debug?.breakpoints ?? [],
    breakpointsRevision: s.debug?.breakpointsRevision ?? 0,
    edits: s.debug?.edits ?? [],
    steps: stepViews(s),
    rerunOf: s.rerunOf,
    savedUsage: s.savedUsage,
    definition: s.definition,
    workflowVersion: s.workflowVersion,
    variables: s.vars,
    output: s.output ?? null,
    eventSeq: s.eventSeq,
  };
}

function stepViews(s: ExecutionSnapshot): Record<string, ConsoleStepView> {
  // A Map first: step paths are user text, and `__proto__` must stay a plain key.
  const out = new Map<string, ConsoleStepView>();
  const edits = s.debug?.edits ?? [];
  for (const [path, st] of Object.entries(s.steps))
    out.set(
      path,
      stepView(
        st,
        edits.filter((e) => e.stepPath === path),
      ),
    );
  return Object.fromEntries(out);
}

function stepView(st: StepState, edits: DebugEdit[]): ConsoleStepView {
  return {
    status: st.status,
    output: st.output ?? null,
    error: st.error,
    attempts: st.attempts,
    duration: st.duration,
    startedAt: st.startedAt,
    completedAt: st.completedAt,
    usage: st.usage ?? null,
    reused: st.reused ?? false,
    edited: st.edited ?? false,
    pinned: st.pinned ?? false,
    artifacts: st.artifacts ?? [],
    approvalId: st.approvalId,
    childExecutionId: st.childExecutionId,
    edits,
  };
}
