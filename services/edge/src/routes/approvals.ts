import type { z } from "zod";
import {
  ApprovalDecision,
  ApprovalList,
  ApprovalListQuery,
  ApprovalsOfExecution,
  ApprovalView,
  ApproveBody,
  ErrorBody,
  ExecutionIdParams,
  IdParams,
  RejectBody,
} from "@wf/shared/api";
import { WfError } from "@wf/shared/errors";
import { subjects } from "@wf/shared/nats";
import { settleApproval, type ApprovalRecord, type Versioned } from "@wf/shared/store";
import { requireWriter, roleOnOwned, visibleExecution, type Role } from "../access/roles";
import type { EdgeContext } from "../context";
import { approvalView } from "../views/approval";
import { editedItemsProblems } from "./edited-items";
import { defineRoute, type Route } from "./route";
import { validationError } from "./validate";

const notFound = { description: "No such approval, or not visible to the key's owner.", schema: ErrorBody };
const forbidden = { description: "The key's owner only views this workflow (or the account is inactive).", schema: ErrorBody };

export const approvalRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/approvals",
    operationId: "listApprovals",
    summary: "List the key owner's approval records, newest first (rows left out)",
    tag: "approvals",
    auth: "APPROVAL_RESPOND",
    query: ApprovalListQuery,
    status: 200,
    responses: { 200: { description: "One page of approvals; each group's items is empty, itemsCount kept.", schema: ApprovalList } },
    handler: ({ query }, { ctx, caller }) => listApprovalsOf(ctx, caller().userId, query),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/approvals/{id}",
    operationId: "getApproval",
    summary: "Get one approval record with its groups' rows and columns",
    tag: "approvals",
    auth: "APPROVAL_RESPOND",
    params: IdParams,
    status: 200,
    responses: { 200: { description: "The full approval record.", schema: ApprovalView }, 404: notFound },
    handler: ({ params }, { ctx, caller }) => approvalOf(ctx, params.id, caller().userId),
  }),
  defineRoute({
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
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/approvals/{id}/approve",
    operationId: "approve",
    summary: "Approve a PENDING approval, optionally with edited rows",
    tag: "approvals",
    auth: "APPROVAL_RESPOND",
    params: IdParams,
    body: ApproveBody,
    status: 200,
    responses: {
      200: { description: "The updated approval record, status APPROVED.", schema: ApprovalView },
      403: forbidden,
      404: { description: "No such approval, not visible, or already handled.", schema: ErrorBody },
    },
    handler: ({ params, body }, { ctx, caller }) =>
      decideAs(ctx, params.id, caller().userId, "approve", { comment: body.comment ?? null, editedItems: body.editedItems ?? null }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/approvals/{id}/reject",
    operationId: "reject",
    summary: "Reject a PENDING approval: the gated path does not run",
    tag: "approvals",
    auth: "APPROVAL_RESPOND",
    params: IdParams,
    body: RejectBody,
    status: 200,
    responses: {
      200: { description: "The updated approval record, status REJECTED.", schema: ApprovalView },
      403: forbidden,
      404: notFound,
      409: { description: "The approval was already decided.", schema: ErrorBody },
    },
    handler: ({ params, body }, { ctx, caller }) => decideAs(ctx, params.id, caller().userId, "reject", { comment: body.comment ?? null, editedItems: null }),
  }),
];

/** One user's approval records, newest first, rows left out and counted (v1's list and the console's inbox). */
export async function listApprovalsOf(ctx: EdgeContext, userId: string, query: z.output<typeof ApprovalListQuery>) {
  const { page, size, status } = query;
  const { items, total } = await ctx.store.approvals.list({ ownerId: userId, status, page, size });
  return { approvals: items.map((a) => approvalView(a, "without-items")), total, page, size };
}

/** One approval record with its rows, if the user may see it (404 otherwise). */
export async function approvalOf(ctx: EdgeContext, id: string, userId: string): Promise<ReturnType<typeof approvalView>> {
  const { approval } = await visibleApproval(ctx, id, userId);
  return approvalView(approval.value, "with-items");
}

/** A decision by a user who may see the approval (404 otherwise) and decide it (owner or editor, 403 otherwise). */
export async function decideAs(
  ctx: EdgeContext,
  id: string,
  userId: string,
  verb: ApprovalDecision["verb"],
  decision: Pick<ApprovalDecision, "comment" | "editedItems">,
): Promise<ReturnType<typeof approvalView>> {
  const { approval, role } = await visibleApproval(ctx, id, userId);
  requireWriter(role, "deciding an approval");
  return decide(ctx, approval, userId, verb, decision);
}

export async function visibleApproval(ctx: EdgeContext, id: string, userId: string): Promise<{ approval: Versioned<ApprovalRecord>; role: Role }> {
  const approval = await ctx.store.approvals.get(id);
  const role = approval && (await roleOnOwned(ctx.store, approval.value, userId));
  if (!approval || !role) throw new WfError("NOT_FOUND", `approval ${id} not found`);
  return { approval, role };
}

/**
 * Publishes the decision's command (`<ns>.cmd.approval.<verb>.<id>`), then records it on the
 * approval record by compare-and-set: of two concurrent decisions one wins, the other finds it
 * handled. The command goes first so that a recorded decision always has one, whatever process
 * dies when; the approvals actor wakes the execution once the record shows this very decision,
 * and ignores a command whose decision was never recorded (its request failed) or lost.
 */
export async function decide(
  ctx: EdgeContext,
  approval: Versioned<ApprovalRecord>,
  userId: string,
  verb: ApprovalDecision["verb"],
  decision: Pick<ApprovalDecision, "comment" | "editedItems">,
): Promise<ReturnType<typeof approvalView>> {
  const now = ctx.clock();
  const pending = approval.value;
  // Past its expiresAt, an approval is handled even before its timer has fired.
  const open = pending.status === "PENDING" && pending.expiresAt > now;
  if (open && decision.editedItems) {
    const problems = editedItemsProblems(pending, decision.editedItems);
    if (problems.length > 0) throw validationError(problems);
  }
  if (open) {
    const command: ApprovalDecision = { approvalId: pending.id, executionId: pending.executionId, verb, decidedBy: userId, decidedAt: now, ...decision };
    await publishDecision(ctx, subjects(ctx.ns).approval(verb, pending.id), JSON.stringify(command), `${pending.id}.${verb}.${approval.version}.${now}`);
  }
  const settled = await settleApproval(
    ctx.store,
    pending.id,
    (current) =>
      current.expiresAt <= now
        ? 0
        : {
            ...current,
            status: verb === "approve" ? "APPROVED" : "REJECTED",
            decidedAt: now,
            decidedBy: userId,
            comment: decision.comment,
            editedItems: decision.editedItems,
          },
    approval,
  );
  if (!settled.won) {
    const current = settled.record;
    if (!current) throw new WfError("NOT_FOUND", `approval ${pending.id} not found`);
    // Approving a handled approval is a 404, rejecting a decided one a 409 (docs/api.md, Approvals).
    const state = current.status === "PENDING" ? "expired" : current.status.toLowerCase();
    if (verb === "approve") throw new WfError("NOT_FOUND", `approval ${current.id} was already handled (${state})`);
    throw new WfError("CONFLICT", `approval ${current.id} was already decided (${state})`);
  }
  return approvalView(settled.record, "with-items");
}

/** Publishes of one decision before the request fails: a retry finds out whether a publish whose ack was lost landed. */
const DECISION_PUBLISHES = 3;

/**
 * A decision's command, published again (same message id) when its ack does not come: a publish
 * that landed is then acknowledged as a duplicate, and the request succeeds. The id names the
 * record's version and the decision's time, so that a client's retry after a failed request is a
 * new decision, never taken for a duplicate of one the approvals actor ignored.
 */
async function publishDecision(ctx: EdgeContext, subject: string, data: string, msgID: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ctx.js.publish(subject, data, { msgID });
      return;
    } catch (err) {
      if (attempt >= DECISION_PUBLISHES) throw err;
      ctx.log.warn("an approval's command was not acknowledged; publishing it again", { subject, attempt, err });
    }
  }
}
