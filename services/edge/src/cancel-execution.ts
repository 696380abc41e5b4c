import { cancelExecution } from "@wf/shared/client";
import { CasConflictError, WfError } from "@wf/shared/errors";
import { TERMINAL_STATUSES, type ExecutionSnapshot } from "@wf/shared/execution";
import type { Store, Versioned } from "@wf/shared/store";
import { requireWriter, visibleExecution } from "./access/roles";
import type { EdgeContext } from "./context";

/**
 * A cancel by a user who may see the execution (404 otherwise, and for one that has finished) and
 * act on it (owner or editor, 403 otherwise). The execution's record is flagged `cancelRequested`
 * before the answer: from then on every write of its run conflicts with the flag and ends it
 * CANCELLED instead (docs/architecture.md#executions), so a 200 is never followed by another end.
 * An execution that ended first is a 404, as any finished one. The cancel command then goes out:
 * the holder stops a running step at once, and an execution nobody holds is finished by it.
 */
export async function cancelAs(
  ctx: EdgeContext,
  id: string,
  userId: string,
): Promise<{ executionId: string; status: "CANCELLED" }> {
  const { execution, role } = await visibleExecution(ctx.store, id, userId);
  let current: Versioned<ExecutionSnapshot> | null = execution;
  for (let checked = false; ; checked = true) {
    if (!current) throw new WfError("NOT_FOUND", `execution ${id} not found`);
    const { status } = current.value;
    if (TERMINAL_STATUSES.has(status))
      throw new WfError("NOT_FOUND", `execution ${id} has already finished (${status})`);
    if (!checked) requireWriter(role, "cancelling an execution");
    if (await flagged(ctx.store, current)) break;
    // Written meanwhile (by its run, or another cancel): read again where writes are checked, and decide again.
    current = await ctx.store.executions.getForWrite(id);
  }
  await cancelExecution(ctx.js, ctx.ns, id);
  return { executionId: id, status: "CANCELLED" };
}

/**
 * Flags the record `cancelRequested` by compare-and-set (nothing to write where it is already): false when another
 * write came first. A PENDING execution's start command, queued ahead of the cancel, then finds the flag too, and
 * whichever command an executor takes first ends it CANCELLED before its first step.
 */
async function flagged(store: Store, execution: Versioned<ExecutionSnapshot>): Promise<boolean> {
  const { value, version } = execution;
  if (value.cancelRequested) return true;
  try {
    await store.executions.update({ ...value, cancelRequested: true }, version);
    return true;
  } catch (err) {
    if (!(err instanceof CasConflictError)) throw err;
    return false;
  }
}
