import {
  CancelBody,
  CancelResponse,
  ErrorBody,
  ExecutionList,
  ExecutionListQuery,
  ExecutionResult,
  ExecutionStatusView,
  IdParams,
  RESULT_STATUSES,
  ResultNotReadyBody,
} from "@wf/shared/api";
import { WfError } from "@wf/shared/errors";
import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { Store } from "@wf/shared/store";
import { roleOn, visibleExecution } from "../access/roles";
import { cancelAs } from "../cancel-execution";
import { AnswerError } from "../errors";
import { executionResult, executionStatusView, executionSummary } from "../views/execution";
import { answerRevision, REVISION_DOC, revisionSeen } from "./execution-revision";
import { defineRoute, type Route } from "./route";
import { defineTwin, viewerForbidden } from "./twin";

const notFound = { description: "No such execution, or not visible to the key's owner.", schema: ErrorBody };

/** Cancelling an execution, in both APIs (the console's is in console/execution-list.ts's routes). */
export const cancelExecution = defineTwin({
  method: "POST",
  path: "/executions/{id}/cancel",
  operationId: "cancelExecution",
  summary: {
    v1: "Cancel a PENDING, RUNNING or AWAITING_APPROVAL execution",
    console: "Cancel a PENDING, RUNNING, PAUSED or AWAITING_APPROVAL execution",
  },
  tag: "executions",
  scope: "EXECUTION_CANCEL",
  params: IdParams,
  body: CancelBody,
  status: 200,
  responses: {
    200: {
      description: "The cancel is recorded on the execution, which ends CANCELLED, whatever its run was doing.",
      schema: CancelResponse,
    },
    403: viewerForbidden,
    404: {
      description: {
        v1: "No such execution, not visible, or already finished (before the cancel could be recorded).",
        console: "No such execution, not visible to you, or already finished (before the cancel could be recorded).",
      },
      schema: ErrorBody,
    },
  },
  handler: ({ params }, { ctx, userId }) => cancelAs(ctx, params.id, userId),
});

export const executionRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/executions",
    operationId: "listExecutions",
    summary: "List executions, newest first: the key owner's, or with workflowId those of a workflow the owner sees",
    tag: "executions",
    auth: "EXECUTION_READ",
    query: ExecutionListQuery,
    status: 200,
    responses: {
      200: { description: "One page of executions (status views without stepResults).", schema: ExecutionList },
    },
    async handler({ query }, { ctx, caller }) {
      const { page, size, workflowId, status, triggerSource, from } = query;
      const userId = caller().userId;
      // Executions belong to their workflow's owner: a shared workflow's are listed under its owner.
      let ownerId = userId;
      if (workflowId !== undefined) {
        const workflow = await ctx.store.workflows.get(workflowId);
        if (workflow && roleOn(workflow.value, userId)) ownerId = workflow.value.ownerId;
      }
      const anchor = from === undefined ? undefined : await anchorOf(ctx.store, from, ownerId);
      const { items, total } = await ctx.store.executions.list({
        ownerId,
        workflowId,
        status,
        stepTests: triggerSource === "step_test",
        page,
        size,
        ...(anchor ? { from: anchor } : {}),
      });
      return { items: items.map(executionSummary), total, page, size };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/executions/{id}",
    operationId: "getExecution",
    summary: "Poll an execution's status",
    tag: "executions",
    auth: "EXECUTION_READ",
    params: IdParams,
    headers: REVISION_DOC,
    status: 200,
    responses: {
      200: { description: "The status view.", schema: ExecutionStatusView, headers: REVISION_DOC },
      404: notFound,
    },
    async handler({ params }, { ctx, caller, request, reply }) {
      const { execution } = await visibleExecution(ctx.store, params.id, caller().userId, revisionSeen(request));
      answerRevision(reply, execution);
      return executionStatusView(execution.value);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/executions/{id}/result",
    operationId: "getExecutionResult",
    summary: "Read the result of a COMPLETED, FAILED or CANCELLED execution",
    tag: "executions",
    auth: "EXECUTION_READ",
    params: IdParams,
    headers: REVISION_DOC,
    status: 200,
    responses: {
      200: { description: "The result.", schema: ExecutionResult, headers: REVISION_DOC },
      404: notFound,
      409: {
        description: "Not COMPLETED, FAILED or CANCELLED (yet, or INTERRUPTED); `status` is the current one.",
        schema: ResultNotReadyBody,
        headers: REVISION_DOC,
      },
    },
    async handler({ params }, { ctx, caller, request, reply }) {
      const { execution } = await visibleExecution(ctx.store, params.id, caller().userId, revisionSeen(request));
      answerRevision(reply, execution);
      const snapshot = execution.value;
      if (!hasResult(snapshot)) {
        throw new AnswerError("CONFLICT", `execution ${snapshot.id} has no result: it is ${snapshot.status}`, {
          status: snapshot.status,
        });
      }
      return executionResult(snapshot);
    },
  }),
  cancelExecution.v1,
];

function hasResult(s: ExecutionSnapshot): s is ExecutionSnapshot & { status: (typeof RESULT_STATUSES)[number] } {
  return (RESULT_STATUSES as readonly string[]).includes(s.status);
}

/** The execution a list starts at: one of the owner's, or the request names what to fix. */
async function anchorOf(store: Store, id: string, ownerId: string): Promise<{ createdAt: number; id: string }> {
  const execution = await store.executions.get(id);
  if (!execution || execution.value.ownerId !== ownerId) {
    throw new WfError(
      "VALIDATION_FAILED",
      `from: no execution ${id} in this list; pass the id of an item of its first page`,
    );
  }
  return { createdAt: execution.value.createdAt, id };
}
