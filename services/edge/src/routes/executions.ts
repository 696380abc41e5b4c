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
import { cancelExecution } from "@wf/shared/client";
import { CasConflictError, WfError } from "@wf/shared/errors";
import { TERMINAL_STATUSES, type ExecutionSnapshot } from "@wf/shared/execution";
import type { Store, Versioned } from "@wf/shared/store";
import { requireWriter, roleOn, visibleExecution } from "../access/roles";
import type { EdgeContext } from "../context";
import { AnswerError } from "../errors";
import { executionResult, executionStatusView, executionSummary } from "../views/execution";
import { defineRoute, type Route } from "./route";

const notFound = { description: "No such execution, or not visible to the key's owner.", schema: ErrorBody };

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
    responses: { 200: { description: "One page of executions (status views without stepResults).", schema: ExecutionList } },
    async handler({ query }, { ctx, caller }) {
      const { page, size, workflowId, status, from } = query;
      const userId = caller().userId;
      // Executions belong to their workflow's owner: a shared workflow's are listed under its owner.
      let ownerId = userId;
      if (workflowId !== undefined) {
        const workflow = await ctx.store.workflows.get(workflowId);
        if (workflow && roleOn(workflow.value, userId)) ownerId = workflow.value.ownerId;
      }
      const anchor = from === undefined ? undefined : await anchorOf(ctx.store, from, ownerId);
      const { items, total } = await ctx.store.executions.list({ ownerId, workflowId, status, page, size, ...(anchor ? { from: anchor } : {}) });
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
    status: 200,
    responses: { 200: { description: "The status view.", schema: ExecutionStatusView }, 404: notFound },
    async handler({ params }, { ctx, caller }) {
      const { execution } = await visibleExecution(ctx.store, params.id, caller().userId);
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
    status: 200,
    responses: {
      200: { description: "The result.", schema: ExecutionResult },
      404: notFound,
      409: { description: "Not COMPLETED, FAILED or CANCELLED (yet, or INTERRUPTED); `status` is the current one.", schema: ResultNotReadyBody },
    },
    async handler({ params }, { ctx, caller }) {
      const { execution } = await visibleExecution(ctx.store, params.id, caller().userId);
      const snapshot = execution.value;
      if (!hasResult(snapshot)) {
        throw new AnswerError("CONFLICT", `execution ${snapshot.id} has no result: it is ${snapshot.status}`, { status: snapshot.status });
      }
      return executionResult(snapshot);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/executions/{id}/cancel",
    operationId: "cancelExecution",
    summary: "Cancel a PENDING, RUNNING or AWAITING_APPROVAL execution",
    tag: "executions",
    auth: "EXECUTION_CANCEL",
    params: IdParams,
    body: CancelBody,
    status: 200,
    responses: {
      200: { description: "The cancel command is durable; the execution ends CANCELLED.", schema: CancelResponse },
      403: { description: "The key's owner only views this workflow (or the account is inactive).", schema: ErrorBody },
      404: { description: "No such execution, not visible, or already finished.", schema: ErrorBody },
    },
    handler: ({ params }, { ctx, caller }) => cancelAs(ctx, params.id, caller().userId),
  }),
];

/**
 * A cancel by a user who may see the execution (404 otherwise, and for one that has finished) and
 * act on it (owner or editor, 403 otherwise): durable once this returns.
 */
export async function cancelAs(ctx: EdgeContext, id: string, userId: string): Promise<{ executionId: string; status: "CANCELLED" }> {
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

function hasResult(s: ExecutionSnapshot): s is ExecutionSnapshot & { status: (typeof RESULT_STATUSES)[number] } {
  return (RESULT_STATUSES as readonly string[]).includes(s.status);
}

/** The execution a list starts at: one of the owner's, or the request names what to fix. */
async function anchorOf(store: Store, id: string, ownerId: string): Promise<{ createdAt: number; id: string }> {
  const execution = await store.executions.get(id);
  if (!execution || execution.value.ownerId !== ownerId) {
    throw new WfError("VALIDATION_FAILED", `from: no execution ${id} in this list; pass the id of an item of its first page`);
  }
  return { createdAt: execution.value.createdAt, id };
}
