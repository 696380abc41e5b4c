import type { ExecutionResult, ExecutionStatusView, ExecutionSummary, StepResult } from "@wf/shared/api";
import type { ExecutionSnapshot, StepState } from "@wf/shared/execution";

/** The list item: the status view without the step results. */
export function executionSummary(s: ExecutionSnapshot): ExecutionSummary {
  return {
    id: s.id,
    workflowId: s.workflowId,
    status: s.status,
    currentStep: s.currentStep,
    completedSteps: s.completedSteps,
    totalSteps: s.totalSteps,
    startAt: s.startedAt,
    completeAt: s.completedAt,
    error: s.error,
    triggerSource: s.triggerSource,
    usage: s.usage,
    createdAt: s.createdAt,
    ...rerunFields(s),
  };
}

/** GET /api/v1/executions/{id} (docs/api.md, Executions). */
export function executionStatusView(s: ExecutionSnapshot): ExecutionStatusView {
  return { ...executionSummary(s), stepResults: stepResults(s) };
}

/** Only for COMPLETED, FAILED and CANCELLED; the caller checks the status. */
export function executionResult(s: ExecutionSnapshot & { status: ExecutionResult["status"] }): ExecutionResult {
  const from = s.startedAt ?? s.createdAt;
  return {
    executionId: s.id,
    status: s.status,
    stepResults: stepResults(s),
    duration: s.completedAt === null ? null : s.completedAt - from,
    output: s.output ?? null,
    error: s.error,
    usage: s.usage,
    ...rerunFields(s),
  };
}

/** An addition to v1 bodies, on reruns only: other executions' answers are as they were. */
function rerunFields(s: ExecutionSnapshot): { rerunOf?: string; savedUsage?: ExecutionSnapshot["savedUsage"] } {
  return s.rerunOf === null ? {} : { rerunOf: s.rerunOf, savedUsage: s.savedUsage };
}

function stepResults(s: ExecutionSnapshot): Record<string, StepResult> {
  // A Map first: step paths are user text, and `__proto__` must stay a plain key.
  const out = new Map<string, StepResult>();
  for (const [path, st] of Object.entries(s.steps)) out.set(path, stepResult(st, s.enableMonitoring));
  return Object.fromEntries(out);
}

function stepResult(st: StepState, monitored: boolean): StepResult {
  const result: StepResult = {
    status: st.status,
    output: st.output ?? null,
    duration: st.duration,
    startedAt: st.startedAt,
    completedAt: st.completedAt,
    error: st.error,
    attempts: st.attempts,
    usage: st.usage ?? null,
  };
  if (st.toolCalls !== undefined) result.toolCalls = st.toolCalls;
  if (st.reused === true) result.reused = true;
  if (st.edited === true) result.edited = true;
  if (monitored) {
    if (st.input !== undefined) result.input = st.input;
    if (st.logs !== undefined) result.logs = st.logs;
  }
  return result;
}
