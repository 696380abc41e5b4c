import { startExecution } from "@wf/shared/client";
import type { DebugRequest, TriggerSource } from "@wf/shared/execution";
import type { WorkflowRecord } from "@wf/shared/store";
import type { EdgeContext } from "./context";

/**
 * Starts an execution of a stored workflow under a new id: inputs checked, PENDING execution
 * stored, start command acknowledged by JetStream. A failed start leaves nothing behind.
 * Resolves the execution's id.
 */
export function startStoredWorkflow(
  ctx: Pick<EdgeContext, "publisher" | "ns" | "store" | "log">,
  w: WorkflowRecord,
  req: { inputs: Record<string, unknown>; triggerSource: TriggerSource; enableMonitoring?: boolean; debug?: DebugRequest },
): Promise<string> {
  return startExecution(
    ctx.publisher,
    ctx.ns,
    {
      workflow: { id: w.id, name: w.name, ownerId: w.ownerId, version: w.version, definition: w.definition },
      inputs: req.inputs,
      triggerSource: req.triggerSource,
      ...(req.enableMonitoring === undefined ? {} : { enableMonitoring: req.enableMonitoring }),
      ...(req.debug === undefined ? {} : { debug: req.debug }),
    },
    { store: ctx.store, log: ctx.log },
  );
}
