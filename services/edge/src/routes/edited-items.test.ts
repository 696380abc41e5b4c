import { describe, expect, it } from "vitest";
import { ApprovalRecord } from "@wf/shared/store";
import { editedItemsProblems } from "./edited-items";

function approval(columns: { key: string; editable?: boolean }[], items: Record<string, unknown>[]): ApprovalRecord {
  return ApprovalRecord.parse({
    id: "a1",
    executionId: "e1",
    workflowId: "w1",
    ownerId: "o1",
    stepName: "review",
    status: "PENDING",
    approvalMessage: "check",
    timeout: 60,
    createdAt: 0,
    expiresAt: 60_000,
    reviewableGroups: [
      {
        name: "rows",
        title: "Rows",
        columns: columns.map((c) => ({ title: c.key, type: "string", ...c })),
        items,
        itemsCount: items.length,
      },
    ],
  });
}

describe("edited rows of an approval", () => {
  const twoRows = approval(
    [{ key: "id" }, { key: "action", editable: true }],
    [
      { id: "1", action: "a" },
      { id: "2", action: "b" },
    ],
  );

  it("fit when each keeps the read-only cells of a row of its own: editable cells changed, rows removed or reordered", () => {
    expect(editedItemsProblems(twoRows, { rows: [{ id: "2", action: "x" }] })).toEqual([]);
    expect(editedItemsProblems(twoRows, { rows: [{ id: "2" }, { id: "1", action: "y" }] })).toEqual([]);
    expect(editedItemsProblems(twoRows, { rows: [] })).toEqual([]);
  });

  it("do not fit when a read-only cell changed or is left out, or a row comes twice", () => {
    const fields = (rows: Record<string, unknown>[]) => editedItemsProblems(twoRows, { rows }).map((p) => p.field);
    expect(fields([{ id: "3", action: "a" }])).toEqual(["editedItems.rows[0].id"]);
    expect(fields([{ action: "a" }])).toEqual(["editedItems.rows[0].id"]);
    expect(fields([{ id: "1" }, { id: "1" }])).toEqual(["editedItems.rows[1].id"]);
  });

  it("of a group whose columns are all editable, are at most as many as its rows", () => {
    const open = approval([{ key: "note", editable: true }], [{ note: "a" }]);
    expect(editedItemsProblems(open, { rows: [{ note: "changed" }] })).toEqual([]);
    expect(editedItemsProblems(open, { rows: [{ note: "x" }, { note: "y" }] })).toEqual([
      { in: "body", field: "editedItems.rows[1]", message: "group `rows` has 1 row(s): rows are removed, not added" },
    ]);
  });
});
