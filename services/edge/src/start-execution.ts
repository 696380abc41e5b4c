import type { FieldProblem } from "@wf/shared/api";
import { startExecution } from "@wf/shared/client";
import { WfError } from "@wf/shared/errors";
import type { DebugRequest, TriggerSource } from "@wf/shared/execution";
import type { WorkflowRecord } from "@wf/shared/store";
import { resolveVariables, WorkflowSchema } from "@wf/shared/workflow";
import type { EdgeContext } from "./context";
import { validationError } from "./routes/validate";

interface StartRequest {
  inputs: Record<string, unknown>;
  triggerSource: TriggerSource;
  enableMonitoring?: boolean;
  debug?: DebugRequest;
}

/**
 * Starts an execution of a stored workflow under a new id: inputs checked, PENDING execution
 * stored, start command acknowledged by JetStream. A failed start leaves nothing behind.
 * Resolves the execution's id.
 */
export function startStoredWorkflow(
  ctx: Pick<EdgeContext, "publisher" | "definitions" | "lanes" | "ns" | "store" | "log">,
  w: WorkflowRecord,
  req: StartRequest,
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
    {
      store: ctx.store,
      log: ctx.log,
      definitions: ctx.definitions,
      maxPayload: ctx.publisher.maxPayload,
      lanes: ctx.lanes,
    },
  );
}

/**
 * A start an API request asked for (v1's, the console's), answered alike: bad inputs are a 400 naming each,
 * `inputs.<name>`.
 */
export async function startRequested(ctx: EdgeContext, w: WorkflowRecord, req: StartRequest) {
  const startedAt = ctx.clock();
  let executionId: string;
  try {
    executionId = await startStoredWorkflow(ctx, w, req);
  } catch (err) {
    if (err instanceof WfError && err.code === "VALIDATION_FAILED") throw inputsError(w.definition, req.inputs, err);
    throw err;
  }
  return { executionId, status: "PENDING" as const, workflowId: w.id, startedAt };
}

/** The 400 of bad inputs, one problem per input (checked only where a start fails VALIDATION_FAILED). */
function inputsError(definition: unknown, inputs: Record<string, unknown>, err: WfError): WfError {
  const workflow = WorkflowSchema.safeParse(definition);
  const resolved = workflow.success ? resolveVariables(workflow.data, inputs) : null;
  if (!resolved || resolved.ok) return err;
  const problems: FieldProblem[] = resolved.errors.map((e) => ({
    in: "body",
    field: `inputs.${e.name}`,
    message: e.message,
  }));
  return validationError(problems);
}
