import {
  ErrorBody,
  IdParams,
  StartExecutionBody,
  StartExecutionResponse,
  WorkflowDetail,
  WorkflowList,
  WorkflowListQuery,
} from "@wf/shared/api";
import { startableWorkflow, visibleWorkflow } from "../access/roles";
import { startRequested } from "../start-execution";
import { workflowDetail, workflowSummary } from "../views/workflow";
import { defineRoute, type Route } from "./route";

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
      202: {
        description: "Accepted: the execution is written PENDING and its start command is durable.",
        schema: StartExecutionResponse,
      },
      403: { description: "The key's owner only views this workflow (or the account is inactive).", schema: ErrorBody },
      404: { description: "No such workflow, or not visible to the key's owner.", schema: ErrorBody },
      413: {
        description:
          "`PAYLOAD_TOO_LARGE`: the body is over 1 MB, or the inputs leave the execution's record no room for its steps' " +
          "results (the message says how large it would start and its room); nothing was started.",
        schema: ErrorBody,
      },
      503: { description: "NATS or the store did not answer; nothing was started.", schema: ErrorBody },
    },
    async handler({ params, body }, { ctx, caller }) {
      const w = (await startableWorkflow(ctx.store, params.id, caller().userId)).value;
      return startRequested(ctx, w, {
        inputs: body.inputs,
        triggerSource: "open_api",
        enableMonitoring: body.enableMonitoring,
      });
    },
  }),
];
