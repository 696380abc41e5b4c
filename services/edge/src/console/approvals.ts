import { ApprovalList, ApprovalListQuery, ApprovalView, ApproveBody, ErrorBody, IdParams, RejectBody } from "@wf/shared/api";
import { requireWriter } from "../access/roles";
import { decide, visibleApproval } from "../routes/approvals";
import { defineRoute, type Route } from "../routes/route";
import { approvalView } from "../views/approval";

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
    async handler({ query }, { ctx, consoleUser }) {
      const { page, size, status } = query;
      const { items, total } = await ctx.store.approvals.list({ ownerId: consoleUser().userId, status, page, size });
      return { approvals: items.map((a) => approvalView(a, "without-items")), total, page, size };
    },
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
    async handler({ params }, { ctx, consoleUser }) {
      const { approval } = await visibleApproval(ctx, params.id, consoleUser().userId);
      return approvalView(approval.value, "with-items");
    },
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
    async handler({ params, body }, { ctx, consoleUser }) {
      const userId = consoleUser().userId;
      const { approval, role } = await visibleApproval(ctx, params.id, userId);
      requireWriter(role, "deciding an approval");
      return decide(ctx, approval, userId, "approve", { comment: body.comment ?? null, editedItems: body.editedItems ?? null });
    },
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
    async handler({ params, body }, { ctx, consoleUser }) {
      const userId = consoleUser().userId;
      const { approval, role } = await visibleApproval(ctx, params.id, userId);
      requireWriter(role, "deciding an approval");
      return decide(ctx, approval, userId, "reject", { comment: body.comment ?? null, editedItems: null });
    },
  }),
];
