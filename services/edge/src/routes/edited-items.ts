import type { FieldProblem } from "@wf/shared/api";
import type { ApprovalRecord } from "@wf/shared/store";

type Row = Record<string, unknown>;

/**
 * `editedItems` names existing groups only (docs/api.md, Approvals), and each row must fit its group's
 * columns: every field a column of the group, every value of the column's type.
 */
export function editedItemsProblems(approval: ApprovalRecord, editedItems: Record<string, Row[]>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const groups = new Map(approval.reviewableGroups.map((g) => [g.name, g]));
  for (const [name, rows] of Object.entries(editedItems)) {
    const group = groups.get(name);
    if (!group) {
      const known = [...groups.keys()];
      const message = known.length
        ? `no group named \`${name}\`; groups: ${known.join(", ")}`
        : "this approval has no groups";
      problems.push({ in: "body", field: `editedItems.${name}`, message });
      continue;
    }
    const columns = new Map(group.columns.map((c) => [c.key, c]));
    rows.forEach((row, i) => {
      for (const [key, value] of Object.entries(row)) {
        const field = `editedItems.${name}[${i}].${key}`;
        const column = columns.get(key);
        if (!column)
          problems.push({
            in: "body",
            field,
            message: `no column \`${key}\` in group \`${name}\`; columns: ${[...columns.keys()].join(", ")}`,
          });
        else if (typeof value !== column.type)
          problems.push({ in: "body", field, message: `must be a ${column.type}` });
      }
    });
  }
  return problems;
}
