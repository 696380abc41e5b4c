import type { ApprovalDecision } from "@wf/shared/api";
import { WfError } from "@wf/shared/errors";
import { subjects } from "@wf/shared/nats";
import { settleApproval, type ApprovalRecord, type Versioned } from "@wf/shared/store";
import { requireWriter, visibleApproval } from "./access/roles";
import type { EdgeContext } from "./context";
import { editedItemsProblems } from "./routes/edited-items";
import { validationError } from "./routes/validate";
import { approvalView } from "./views/approval";

type Verb = ApprovalDecision["verb"];
type Decision = Pick<ApprovalDecision, "comment" | "editedItems">;

/** A decision by a user who may see the approval (404 otherwise) and decide it (owner or editor, 403 otherwise). */
export async function decideAs(
  ctx: EdgeContext,
  id: string,
  userId: string,
  verb: Verb,
  decision: Decision,
): Promise<ReturnType<typeof approvalView>> {
  const { approval, role } = await visibleApproval(ctx.store, id, userId);
  requireWriter(role, "deciding an approval");
  return decide(ctx, approval, userId, verb, decision);
}

/**
 * Publishes the decision's command (`<ns>.cmd.approvals.<lane>.<verb>.<id>`), then records it on the
 * approval record by compare-and-set: of two concurrent decisions one wins, the other finds it
 * handled. The command goes first so that a recorded decision always has one, whatever process
 * dies when; the approvals actor wakes the execution once the record shows this very decision,
 * and ignores a command whose decision was never recorded (its request failed) or lost.
 */
export async function decide(
  ctx: EdgeContext,
  approval: Versioned<ApprovalRecord>,
  userId: string,
  verb: Verb,
  decision: Decision,
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
    const command: ApprovalDecision = {
      approvalId: pending.id,
      executionId: pending.executionId,
      verb,
      decidedBy: userId,
      decidedAt: now,
      ...decision,
    };
    await publishDecision(
      ctx,
      subjects(ctx.ns).approval(verb, pending.id, pending.executionId),
      JSON.stringify(command),
      `${pending.id}.${verb}.${approval.version}.${now}`,
    );
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

/**
 * Publishes of one decision before the request fails: a retry finds out whether a publish whose ack was lost landed.
 */
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
