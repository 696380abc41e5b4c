import {
  ApprovalList,
  ApprovalListQuery,
  ApprovalsOfExecution,
  ApprovalView,
  ApproveBody,
  ConsoleApprovalListQuery,
  ErrorBody,
  ExecutionIdParams,
  IdParams,
  RejectBody,
} from "@wf/shared/api";
import type { ApprovalListQuery as ApprovalPageQuery } from "@wf/shared/store";
import { visibleApproval, visibleExecution } from "../access/roles";
import type { EdgeContext } from "../context";
import { decideAs } from "../decide-approval";
import { approvalView } from "../views/approval";
import { defineRoute, type Route } from "./route";
import { defineTwin, viewerForbidden } from "./twin";

const notFound = {
  description: {
    v1: "No such approval, or not visible to the key's owner.",
    console: "No such approval, or not visible to you.",
  },
  schema: ErrorBody,
};

const listed = {
  200: { description: "One page of approvals; each group's items is empty, itemsCount kept.", schema: ApprovalList },
};

/** One page of an owner's approvals, step tests' (`stepTest`) only when asked for, else none of them. */
async function approvalPage(ctx: EdgeContext, query: ApprovalPageQuery) {
  const { items, total } = await ctx.store.approvals.list(query);
  return { approvals: items.map((a) => approvalView(a, "without-items")), total, page: query.page, size: query.size };
}

/** v1's list leaves step tests' approvals out, with no way to ask for them: v1 never lists step tests' work. */
const listApprovals = defineRoute({
  method: "GET",
  path: "/api/v1/approvals",
  operationId: "listApprovals",
  summary: "List the key owner's approval records, newest first (rows left out)",
  tag: "approvals",
  auth: "APPROVAL_RESPOND",
  query: ApprovalListQuery,
  status: 200,
  responses: listed,
  handler: ({ query }, { ctx, caller }) => approvalPage(ctx, { ...query, ownerId: caller().userId }),
});

/** The console's inbox, whose filter asks for step tests' approvals as its execution list asks for step tests. */
const consoleListApprovals = defineRoute({
  method: "GET",
  path: "/api/console/approvals",
  operationId: "consoleListApprovals",
  summary:
    "Your approval records, newest first (rows left out, counted); step tests' only with triggerSource=step_test",
  tag: "approvals",
  auth: "console",
  query: ConsoleApprovalListQuery,
  status: 200,
  responses: listed,
  handler: ({ query: { triggerSource, ...query } }, { ctx, consoleUser }) =>
    approvalPage(ctx, { ...query, ownerId: consoleUser().userId, stepTests: triggerSource === "step_test" }),
});

const getApproval = defineTwin({
  method: "GET",
  path: "/approvals/{id}",
  operationId: "getApproval",
  summary: {
    v1: "Get one approval record with its groups' rows and columns",
    console: "One approval record with its groups' rows and columns",
  },
  tag: "approvals",
  scope: "APPROVAL_RESPOND",
  params: IdParams,
  status: 200,
  responses: { 200: { description: "The full approval record.", schema: ApprovalView }, 404: notFound },
  async handler({ params }, { ctx, userId }) {
    const { approval } = await visibleApproval(ctx.store, params.id, userId);
    return approvalView(approval.value, "with-items");
  },
});

const listApprovalsOfExecution = defineRoute({
  method: "GET",
  path: "/api/v1/approvals/execution/{executionId}",
  operationId: "listApprovalsOfExecution",
  summary: "All approval records of one execution, oldest first (rows left out)",
  tag: "approvals",
  auth: "APPROVAL_RESPOND",
  params: ExecutionIdParams,
  status: 200,
  responses: {
    200: { description: "The execution's approvals.", schema: ApprovalsOfExecution },
    404: { description: "No such execution, or not visible to the key's owner.", schema: ErrorBody },
  },
  async handler({ params }, { ctx, caller }) {
    await visibleExecution(ctx.store, params.executionId, caller().userId);
    const approvals = await ctx.store.approvals.listByExecution(params.executionId);
    return { approvals: approvals.map((a) => approvalView(a, "without-items")), total: approvals.length };
  },
});

const approve = defineTwin({
  method: "POST",
  path: "/approvals/{id}/approve",
  operationId: "approve",
  summary: "Approve a PENDING approval, optionally with edited rows",
  tag: "approvals",
  scope: "APPROVAL_RESPOND",
  params: IdParams,
  body: ApproveBody,
  status: 200,
  responses: {
    200: { description: "The updated approval record, status APPROVED.", schema: ApprovalView },
    403: viewerForbidden,
    404: {
      description: {
        v1: "No such approval, not visible, or already handled.",
        console: "No such approval, not visible to you, or already handled.",
      },
      schema: ErrorBody,
    },
  },
  handler: ({ params, body }, { ctx, userId }) =>
    decideAs(ctx, params.id, userId, "approve", {
      comment: body.comment ?? null,
      editedItems: body.editedItems ?? null,
    }),
});

const reject = defineTwin({
  method: "POST",
  path: "/approvals/{id}/reject",
  operationId: "reject",
  summary: "Reject a PENDING approval: the gated path does not run",
  tag: "approvals",
  scope: "APPROVAL_RESPOND",
  params: IdParams,
  body: RejectBody,
  status: 200,
  responses: {
    200: { description: "The updated approval record, status REJECTED.", schema: ApprovalView },
    403: viewerForbidden,
    404: notFound,
    409: { description: "The approval was already decided.", schema: ErrorBody },
  },
  handler: ({ params, body }, { ctx, userId }) =>
    decideAs(ctx, params.id, userId, "reject", { comment: body.comment ?? null, editedItems: null }),
});

export const approvalRoutes: Route[] = [listApprovals, getApproval.v1, listApprovalsOfExecution, approve.v1, reject.v1];

/**
 * The console's approvals inbox: v1's approval routes under the session, but an execution's list (docs/api.md,
 * Approvals).
 */
export const consoleApprovalRoutes: Route[] = [
  consoleListApprovals,
  getApproval.console,
  approve.console,
  reject.console,
];
