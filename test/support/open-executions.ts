/**
 * Open executions and their approvals as an executor leaves them in the store, written straight there: for what looks
 * at open executions (the scheduler's sweeps) without an executor running them.
 */
import { ExecutionSnapshot, newId, StepState } from "@wf/shared/execution";
import { ApprovalRecord } from "@wf/shared/store";

/** A RUNNING execution created at `createdAt`, its steps and any other field from `fields`. */
export function openExecution(createdAt: number, fields: Partial<ExecutionSnapshot> = {}): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: newId(),
    workflowId: "wf-open",
    workflowName: "open",
    ownerId: "owner-open",
    triggerSource: "console",
    status: "RUNNING",
    totalSteps: 1,
    createdAt,
    vars: {},
    definition: { steps: [] },
    ...fields,
  });
}

/** Step `name`, of `type`, running since `startedAt`, with `fields`. */
export function runningStep(
  name: string,
  type: StepState["type"],
  startedAt: number,
  fields: Partial<StepState> = {},
): StepState {
  return StepState.parse({ name, type, status: "RUNNING", attempts: 1, startedAt, ...fields });
}

/** A PENDING approval of execution `e`'s step `gate`, made when `e` was, expiring a minute later unless `fields` say. */
export function approvalOf(e: ExecutionSnapshot, fields: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return ApprovalRecord.parse({
    id: newId(),
    executionId: e.id,
    workflowId: e.workflowId,
    ownerId: e.ownerId,
    stepName: "gate",
    status: "PENDING",
    approvalMessage: "go?",
    timeout: 60,
    createdAt: e.createdAt,
    expiresAt: e.createdAt + 60_000,
    reviewableGroups: [],
    ...fields,
  });
}

/** An execution created at `createdAt` awaiting, at its step `gate`, the approval `approval` makes of it. */
export function awaitingApproval(
  createdAt: number,
  approval: (e: ExecutionSnapshot) => ApprovalRecord,
): [ExecutionSnapshot, ApprovalRecord] {
  const e = openExecution(createdAt, { status: "AWAITING_APPROVAL" });
  const a = approval(e);
  e.steps.gate = runningStep("gate", "transform", createdAt, { status: "AWAITING_APPROVAL", approvalId: a.id });
  return [e, a];
}
