import type { ApprovalView } from "@wf/shared/api";
import type { ApprovalRecord } from "@wf/shared/store";

/**
 * The full record (detail endpoint), or with each group's rows left out (lists: `items: []`); `stepTest` only on a
 * step test's approval.
 */
export function approvalView(a: ApprovalRecord, rows: "with-items" | "without-items"): ApprovalView {
  return {
    id: a.id,
    executionId: a.executionId,
    workflowId: a.workflowId,
    stepName: a.stepName,
    status: a.status,
    approvalMessage: a.approvalMessage,
    timeout: a.timeout,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    reviewableGroups: a.reviewableGroups.map((g) => ({
      name: g.name,
      title: g.title,
      columns: g.columns,
      items: rows === "with-items" ? g.items : [],
      itemsCount: g.itemsCount,
    })),
    decidedAt: a.decidedAt,
    decidedBy: a.decidedBy,
    comment: a.comment,
    editedItems: a.editedItems,
    // Only where it is one: every other approval answers as it did before step tests were told apart.
    ...(a.stepTest ? { stepTest: true as const } : {}),
  };
}
