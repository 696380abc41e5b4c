import type { ExecutionEvent } from "../../api/events";
import type { ConsoleExecutionStatus, ExecutionView, PauseRecord, StepStatus, StepView, Usage } from "../../api/types";

const STEP_STATUSES: ReadonlySet<string> = new Set([
  "PENDING",
  "RUNNING",
  "COMPLETED",
  "FAILED",
  "SKIPPED",
  "AWAITING_APPROVAL",
  "REJECTED",
  "EXPIRED",
  "CANCELLED",
]);
const EXECUTION_STATUSES: ReadonlySet<string> = new Set([
  "PENDING",
  "RUNNING",
  "AWAITING_APPROVAL",
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "INTERRUPTED",
]);
const ENDS: ReadonlySet<string> = new Set(["COMPLETED", "FAILED", "CANCELLED", "INTERRUPTED"]);

const isUsage = (v: unknown): v is Usage =>
  typeof v === "object" &&
  v !== null &&
  ["promptTokens", "completionTokens", "totalTokens", "costUsd"].every(
    (k) => typeof (v as Record<string, unknown>)[k] === "number",
  );

const blankStep = (at: number): StepView => ({
  status: "PENDING",
  output: null,
  error: null,
  attempts: 0,
  duration: null,
  startedAt: at,
  completedAt: null,
  usage: null,
  reused: false,
  edited: false,
  pinned: false,
  artifacts: [],
  approvalId: null,
  childExecutionId: null,
  edits: [],
});

/** The step's state as the event leaves it, or null when the event does not change a step's state. */
function nextStep(st: StepView, e: ExecutionEvent): StepView | null {
  const d = e.data;
  if (e.type === "step_started") {
    return {
      ...st,
      status: "RUNNING",
      attempts: typeof d.attempt === "number" ? d.attempt : st.attempts,
      completedAt: null,
      error: null,
    };
  }
  if (e.type === "step_awaiting_approval") return { ...st, status: "AWAITING_APPROVAL" };
  if (e.type === "step_child")
    return typeof d.childExecutionId === "string" ? { ...st, childExecutionId: d.childExecutionId } : null;
  // Each LLM call's event carries the step's usage so far: tokens and cost count up while it runs.
  if (e.type === "step_usage") return isUsage(d.stepUsage) ? { ...st, usage: d.stepUsage } : null;
  if (typeof d.status !== "string" || !STEP_STATUSES.has(d.status)) return null;
  const status = d.status as StepStatus;
  return {
    ...st,
    status,
    completedAt: status === "RUNNING" || status === "PENDING" ? st.completedAt : e.at,
    ...("output" in d ? { output: d.output } : {}),
    ...(typeof d.error === "string" ? { error: d.error } : {}),
    ...(typeof d.duration === "number" ? { duration: d.duration } : {}),
    ...(typeof d.attempts === "number" ? { attempts: d.attempts } : {}),
    ...(e.type === "step_reused"
      ? {
          reused: true,
          pinned: d.pinned === true,
          edited: d.edited === true,
          ...(isUsage(d.usage) ? { usage: d.usage } : {}),
        }
      : {}),
  };
}

/** An event's number among its execution's events (its id `<executionId>.<n>`); null for a live-only event. */
export function eventNumber(e: ExecutionEvent): number | null {
  const prefix = `${e.executionId}.`;
  const n = e.id.startsWith(prefix) ? e.id.slice(prefix.length) : "";
  return /^[1-9][0-9]*$/.test(n) ? Number(n) : null;
}

/**
 * A numbered event the view does not reflect yet (past its `eventSeq`, which then counts it),
 * applied. Replayed history, events the fetched view already holds and live-only events (which
 * change no state) leave it as it is, whatever the clocks of the browser and the service say.
 */
export function applyNewer(view: ExecutionView, e: ExecutionEvent): ExecutionView {
  const n = eventNumber(e);
  return n === null || n <= view.eventSeq ? view : { ...applyEvent(view, e), eventSeq: n };
}

/**
 * The execution view as an event says it now is, so a page shows a step start or end the moment
 * it happens; the view fetched again afterwards is the authority for everything else.
 */
export function applyEvent(view: ExecutionView, e: ExecutionEvent): ExecutionView {
  if (e.type === "debug_paused") {
    return {
      ...view,
      status: "PAUSED",
      pause: e.data as unknown as PauseRecord,
      currentStep: e.step ?? view.currentStep,
    };
  }
  if (e.type === "debug_resumed")
    return { ...view, status: view.status === "PAUSED" ? "RUNNING" : view.status, pause: null };
  if (e.type.startsWith("exec_")) {
    const status = e.data.status;
    if (typeof status !== "string" || !EXECUTION_STATUSES.has(status)) return view;
    // A paused debug run is RUNNING to the executor (it parks at its pause): the console keeps saying PAUSED.
    if (status === "RUNNING" && view.pause !== null) return view;
    return {
      ...view,
      status: status as ConsoleExecutionStatus,
      ...(ENDS.has(status) ? { completeAt: view.completeAt ?? e.at, pause: null } : {}),
      ...(typeof e.data.error === "string" ? { error: e.data.error } : {}),
    };
  }
  if (e.step === undefined || !e.type.startsWith("step_")) return view;
  const st = nextStep(view.steps[e.step] ?? blankStep(e.at), e);
  if (st === null) return view;
  // The summary's count, as the executor keeps it: top-level steps completed (a reused one was counted at the rerun's
  // start).
  const counted =
    e.type !== "step_reused" &&
    st.status === "COMPLETED" &&
    view.steps[e.step]?.status !== "COMPLETED" &&
    !/[.[]/.test(e.step);
  return {
    ...view,
    // A rerun's saving is the executor's to say: its record read before the rerun was built says zero.
    ...(e.type === "step_reused" && isUsage(e.data.savedUsage) ? { savedUsage: e.data.savedUsage } : {}),
    steps: { ...view.steps, [e.step]: st },
    ...(e.type === "step_started" ? { currentStep: e.step } : {}),
    ...(counted ? { completedSteps: view.completedSteps + 1 } : {}),
  };
}
