import { ApprovalList, ApprovalListQuery, ApprovalView, ApproveBody, ErrorBody, IdParams, RejectBody } from "@wf/shared/api";
import { approvalOf, decideAs, listApprovalsOf } from "../routes/approvals";
import { defineRoute, type Route } from "../routes/route";

const notFound = { description: "No such approval, or not visible to you.", schema: ErrorBody };
const forbidden = { description: "You only view this workflow (or the account is inactive, or X-CSRF-Token is wrong).", schema: ErrorBody };

/** The approvals inbox of the console: v1's approval routes under the session (docs/api.md, Approvals). */
export const consoleApprovalRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/console/approvals",
    operationId: "consoleListApprovals",
    summary: "Your approval records, newest first (rows left out, counted)",
    tag: "approvals",
    auth: "console",
    query: ApprovalListQuery,
    status: 200,
    responses: { 200: { description: "One page of approvals; each group's items is empty, itemsCount kept.", schema: ApprovalList } },
    handler: ({ query }, { ctx, consoleUser }) => listApprovalsOf(ctx, consoleUser().userId, query),
  }),
  defineRoute({
    method: "GET",
    path: "/api/console/approvals/{id}",
    operationId: "consoleGetApproval",
    summary: "One approval record with its groups' rows and columns",
    tag: "approvals",
    auth: "console",
    params: IdParams,
    status: 200,
    responses: { 200: { description: "The full approval record.", schema: ApprovalView }, 404: notFound },
    handler: ({ params }, { ctx, consoleUser }) => approvalOf(ctx, params.id, consoleUser().userId),
  }),
  defineRoute({
    method: "POST",
    path: "/api/console/approvals/{id}/approve",
    operationId: "consoleApprove",
    summary: "Approve a PENDING approval, optionally with edited rows",
    tag: "approvals",
    auth: "console",
    params: IdParams,
    body: ApproveBody,
    status: 200,
    responses: {
      200: { description: "The updated approval record, status APPROVED.", schema: ApprovalView },
      403: forbidden,
      404: { description: "No such approval, not visible to you, or already handled.", schema: ErrorBody },
    },
    handler: ({ params, body }, { ctx, consoleUser }) =>
      decideAs(ctx, params.id, consoleUser().userId, "approve", { comment: body.comment ?? null, editedItems: body.editedItems ?? null }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/console/approvals/{id}/reject",
    operationId: "consoleReject",
    summary: "Reject a PENDING approval: the gated path does not run",
    tag: "approvals",
    auth: "console",
    params: IdParams,
    body: RejectBody,
    status: 200,
    responses: {
      200: { description: "The updated approval record, status REJECTED.", schema: ApprovalView },
      403: forbidden,
      404: notFound,
      409: { description: "The approval was already decided.", schema: ErrorBody },
    },
    handler: ({ params, body }, { ctx, consoleUser }) =>
      decideAs(ctx, params.id, consoleUser().userId, "reject", { comment: body.comment ?? null, editedItems: null }),
  }),
];
