import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { ApprovalRecord } from "@wf/shared/store";
import type { ManualApproval } from "@wf/shared/workflow";

type Row = Record<string, unknown>;

/** What `manual_approval` evaluates to: its message and each group's rows. */
export interface RenderedApproval {
  message: unknown;
  items: unknown[];
}

/**
 * The approval record of a gated step, from its evaluated message and groups; a string that
 * says what is wrong when a group's `items` is not a list of objects.
 */
export function approvalRecord(
  snap: ExecutionSnapshot,
  id: string,
  stepPath: string,
  spec: ManualApproval,
  rendered: RenderedApproval,
  now: number,
): ApprovalRecord | string {
  const groups = spec.groups ?? [];
  const reviewableGroups: ApprovalRecord["reviewableGroups"] = [];
  for (const [i, group] of groups.entries()) {
    const items = rendered.items[i];
    if (!Array.isArray(items) || !items.every(isRow)) {
      return `approval group \`${group.name}\`: \`items\` must evaluate to a list of objects, got ${describe(items)}`;
    }
    reviewableGroups.push({
      name: group.name,
      title: group.title,
      columns: group.columns.map((c) => ({ key: c.key, title: c.title, type: c.type, editable: c.editable ?? false })),
      items,
      itemsCount: items.length,
    });
  }
  return {
    id,
    executionId: snap.id,
    workflowId: snap.workflowId,
    ownerId: snap.ownerId,
    stepName: stepPath,
    status: "PENDING",
    approvalMessage: typeof rendered.message === "string" ? rendered.message : JSON.stringify(rendered.message),
    timeout: spec.timeout,
    createdAt: now,
    expiresAt: now + spec.timeout * 1000,
    reviewableGroups,
    decidedAt: null,
    decidedBy: null,
    comment: null,
    editedItems: null,
    // A sub-workflow's child inherits its parent's trigger, so a step test's children mark theirs too.
    stepTest: snap.triggerSource === "step_test",
  };
}

/** The rows the gated step runs with: the edited ones where the reviewer sent some, else the originals. */
export function approvedRows(record: ApprovalRecord): Record<string, Row[]> {
  const rows: Record<string, Row[]> = {};
  for (const group of record.reviewableGroups) rows[group.name] = record.editedItems?.[group.name] ?? group.items;
  return rows;
}

/** The error of a gate that did not open, as docs/api.md (Approvals) words it. */
export function closedGateError(record: ApprovalRecord): string {
  if (record.status === "EXPIRED") return `approval ${record.id} expired`;
  return `approval ${record.id} rejected${record.comment ? `: ${record.comment}` : ""}`;
}

function isRow(v: unknown): v is Row {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list with a non-object entry";
  return typeof v;
}
