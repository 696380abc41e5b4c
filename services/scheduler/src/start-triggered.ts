import { startExecution, type StartRequest } from "@wf/shared/client";
import { AlreadyExistsError, WfError } from "@wf/shared/errors";
import type { Platform } from "@wf/shared/runtime";
import type { WorkflowRecord } from "@wf/shared/store";

/**
 * Starts an execution of a stored workflow under a derived id, at most once per id. The inputs
 * are empty: the workflow's variables take their defaults.
 */
export async function startTriggered(
  p: Platform,
  w: WorkflowRecord,
  executionId: string,
  triggerSource: "schedule" | "chained",
): Promise<void> {
  const ns = p.config.WF_NAMESPACE;
  const req: StartRequest = {
    executionId,
    workflow: { id: w.id, name: w.name, ownerId: w.ownerId, version: w.version, definition: w.definition },
    inputs: {},
    triggerSource,
  };
  try {
    await startExecution(p.js, ns, req, { store: p.store });
  } catch (err) {
    if (err instanceof AlreadyExistsError) {
      // An earlier delivery wrote the snapshot; it may have died before the start command went
      // out. JetStream drops the command if it did go out (same Nats-Msg-Id).
      const current = await p.store.executions.get(executionId);
      if (current?.value.status === "PENDING" && current.value.holder === null) await startExecution(p.js, ns, req);
      return;
    }
    // A required variable without a default: nobody is there to be told but the owner, so the
    // executor records the execution FAILED with the reason, where the owner looks.
    if (err instanceof WfError && err.code === "VALIDATION_FAILED") {
      await startExecution(p.js, ns, req);
      return;
    }
    throw err;
  }
}
