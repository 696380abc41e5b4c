import { cancelExecution } from "@wf/shared/client";
import { CasConflictError, WfError } from "@wf/shared/errors";
import { TERMINAL_STATUSES, type ExecutionSnapshot } from "@wf/shared/execution";
import type { Store, Versioned } from "@wf/shared/store";
import { requireWriter, visibleExecution } from "./access/roles";
import type { EdgeContext } from "./context";

/**
 * A cancel by a user who may see the execution (404 otherwise, and for one that has finished) and
 * act on it (owner or editor, 403 otherwise): durable once this returns.
 */
export async function cancelAs(
  ctx: EdgeContext,
  id: string,
  userId: string,
): Promise<{ executionId: string; status: "CANCELLED" }> {
  const { execution, role } = await visibleExecution(ctx.store, id, userId);
  const { status } = execution.value;
  if (TERMINAL_STATUSES.has(status)) throw new WfError("NOT_FOUND", `execution ${id} has already finished (${status})`);
  requireWriter(role, "cancelling an execution");
  await flagQueued(ctx.store, execution);
  await cancelExecution(ctx.js, ctx.ns, id);
  return { executionId: id, status: "CANCELLED" };
}

/**
 * A PENDING execution nobody holds is flagged before the cancel command goes out: its start
 * command is queued ahead of the cancel, and whichever executor takes either one then finishes
 * it CANCELLED before its first step. Lost to a concurrent write, the flag is left to the cancel
 * command, which the holder sees.
 */
async function flagQueued(store: Store, execution: Versioned<ExecutionSnapshot>): Promise<void> {
  const { value, version } = execution;
  if (value.status !== "PENDING" || value.holder !== null || value.cancelRequested) return;
  try {
    await store.executions.update({ ...value, cancelRequested: true }, version);
  } catch (err) {
    if (!(err instanceof CasConflictError)) throw err;
  }
}
