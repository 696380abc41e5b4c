import { startExecution } from "@wf/shared/client";
import { WfError } from "@wf/shared/errors";
import type { TriggerSource } from "@wf/shared/execution";
import type { WorkflowRecord } from "@wf/shared/store";
import type { EdgeContext } from "./context";

/**
 * Starts an execution of a stored workflow: inputs checked, PENDING snapshot written, start
 * command acknowledged by JetStream. A failed start leaves nothing behind.
 */
export async function startStoredWorkflow(
  ctx: Pick<EdgeContext, "publisher" | "ns" | "store" | "log">,
  w: WorkflowRecord,
  req: { executionId: string; inputs: Record<string, unknown>; triggerSource: TriggerSource; enableMonitoring?: boolean },
): Promise<void> {
  try {
    await startExecution(
      ctx.publisher,
      ctx.ns,
      {
        executionId: req.executionId,
        workflow: { id: w.id, name: w.name, ownerId: w.ownerId, version: w.version, definition: w.definition },
        inputs: req.inputs,
        triggerSource: req.triggerSource,
        ...(req.enableMonitoring === undefined ? {} : { enableMonitoring: req.enableMonitoring }),
      },
      { store: ctx.store },
    );
  } catch (err) {
    // Bad inputs are refused before anything is written; any other failure may leave the PENDING snapshot.
    if (!(err instanceof WfError && err.code === "VALIDATION_FAILED")) await forgetUnstarted(ctx, req.executionId);
    throw err;
  }
}

/**
 * The PENDING snapshot is written before the start command is published: when the publish
 * fails, the snapshot would stay PENDING forever. It is removed, unless an executor already took
 * the command (it would have moved it past PENDING), so that a failed start leaves nothing.
 */
async function forgetUnstarted({ store, log }: Pick<EdgeContext, "store" | "log">, executionId: string): Promise<void> {
  try {
    const current = await store.executions.get(executionId);
    if (current?.value.status === "PENDING" && current.value.holder === null) await store.executions.delete(executionId);
  } catch (err) {
    log.error("a PENDING execution whose start failed could not be removed", { executionId, err });
  }
}
