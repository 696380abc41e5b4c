import type { FieldProblem } from "@wf/shared/api";
import type { ApprovalRecord } from "@wf/shared/store";

type Row = Record<string, unknown>;

/**
 * `editedItems` names existing groups only (docs/api.md, Approvals), and each row must fit its group's
 * columns: every field a column of the group, every value of the column's type, and its read-only
 * columns those of one of the group's rows, each row at most once. A reviewer edits the editable
 * cells and removes rows; changing another cell, or adding or repeating a row, is refused.
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
    const readOnly = group.columns.filter((c) => !c.editable).map((c) => c.key);
    const unmatched = new Map<string, number>();
    for (const item of group.items) {
      const key = readOnlyKey(readOnly, item);
      unmatched.set(key, (unmatched.get(key) ?? 0) + 1);
    }
    rows.forEach((row, i) => {
      const key = readOnlyKey(readOnly, row);
      const left = unmatched.get(key) ?? 0;
      if (left > 0) unmatched.set(key, left - 1);
      else
        problems.push({
          in: "body",
          field: `editedItems.${name}[${i}]${readOnly.length ? `.${readOnly[0]}` : ""}`,
          message: readOnly.length
            ? `matches no row of group \`${name}\` left in its read-only columns (${readOnly.join(", ")}): ` +
              "only editable cells change, and rows are removed, not added or repeated"
            : `group \`${name}\` has ${group.items.length} row(s): rows are removed, not added`,
        });
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

/** A row's values in the read-only columns, as one comparable text (a value left out is not null). */
function readOnlyKey(readOnly: readonly string[], row: Row): string {
  return JSON.stringify(readOnly.map((key) => (key in row ? row[key] : { absent: true })));
}
