import {
  ErrorBody,
  IdParams,
  StartExecutionBody,
  StartExecutionResponse,
  WorkflowDetail,
  WorkflowList,
  WorkflowListQuery,
  type FieldProblem,
} from "@wf/shared/api";
import { WfError } from "@wf/shared/errors";
import { resolveVariables, WorkflowSchema } from "@wf/shared/workflow";
import { startableWorkflow, visibleWorkflow } from "../access/roles";
import { startStoredWorkflow } from "../start-execution";
import { workflowDetail, workflowSummary } from "../views/workflow";
import { defineRoute, type Route } from "./route";
import { validationError } from "./validate";

export const workflowRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/workflows",
    operationId: "listWorkflows",
    summary: "List the workflows the key's owner owns or is shared",
    tag: "workflows",
    auth: "WORKFLOW_READ",
    query: WorkflowListQuery,
    status: 200,
    responses: { 200: { description: "One page of workflows, by name.", schema: WorkflowList } },
    async handler({ query }, { ctx, caller }) {
      const { items, total } = await ctx.store.workflows.listVisible(caller().userId, query);
      return { items: items.map(workflowSummary), total, page: query.page, size: query.size };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/workflows/{id}",
    operationId: "getWorkflow",
    summary: "Get one workflow definition",
    tag: "workflows",
    auth: "WORKFLOW_READ",
    params: IdParams,
    status: 200,
    responses: {
      200: { description: "The workflow.", schema: WorkflowDetail },
      404: { description: "No such workflow, or not visible to the key's owner.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, caller }) {
      const { workflow } = await visibleWorkflow(ctx.store, params.id, caller().userId);
      return workflowDetail(workflow.value);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/workflows/{id}/executions",
    operationId: "startExecution",
    summary: "Start an execution (triggerSource open_api); poll its status with the executionId",
    tag: "workflows",
    auth: "WORKFLOW_EXECUTE",
    params: IdParams,
    body: StartExecutionBody,
    status: 202,
    responses: {
      202: { description: "Accepted: the execution is written PENDING and its start command is durable.", schema: StartExecutionResponse },
      403: { description: "The key's owner only views this workflow (or the account is inactive).", schema: ErrorBody },
      404: { description: "No such workflow, or not visible to the key's owner.", schema: ErrorBody },
      503: { description: "NATS or the store did not answer; nothing was started.", schema: ErrorBody },
    },
    async handler({ params, body }, { ctx, caller }) {
      const w = (await startableWorkflow(ctx.store, params.id, caller().userId)).value;
      const startedAt = ctx.clock();
      let executionId: string;
      try {
        executionId = await startStoredWorkflow(ctx, w, {
          inputs: body.inputs,
          triggerSource: "open_api",
          enableMonitoring: body.enableMonitoring,
        });
      } catch (err) {
        if (err instanceof WfError && err.code === "VALIDATION_FAILED") throw inputsError(w.definition, body.inputs, err);
        throw err;
      }
      return { executionId, status: "PENDING" as const, workflowId: w.id, startedAt };
    },
  }),
];

/** The 400 of bad inputs, one problem per input, as `inputs.<name>` (checked only where a start fails VALIDATION_FAILED). */
export function inputsError(definition: unknown, inputs: Record<string, unknown>, err: WfError): WfError {
  const workflow = WorkflowSchema.safeParse(definition);
  const resolved = workflow.success ? resolveVariables(workflow.data, inputs) : null;
  if (!resolved || resolved.ok) return err;
  const problems: FieldProblem[] = resolved.errors.map((e) => ({ in: "body", field: `inputs.${e.name}`, message: e.message }));
  return validationError(problems);
}
