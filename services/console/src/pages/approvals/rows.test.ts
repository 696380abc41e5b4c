import { describe, expect, it } from "vitest";
import type { ReviewableGroup } from "../../api/types";
import {
  changesOf,
  draftOf,
  editedItemsOf,
  fieldsNotShown,
  locateProblem,
  resetGroup,
  setCell,
  toggleRemoved,
  type Drafts,
} from "./rows";

const rows: ReviewableGroup = {
  name: "rows",
  title: "Actions",
  columns: [
    { key: "id", title: "ID", type: "number", editable: false },
    { key: "action", title: "Action", type: "string", editable: true },
    { key: "qty", title: "Qty", type: "number", editable: true },
    { key: "notify", title: "Notify", type: "boolean", editable: true },
  ],
  items: [
    { id: 1, action: "close", qty: 1, notify: true, internal: "a" },
    { id: 2, action: "reopen", qty: 2, notify: false, internal: "b" },
    { id: 3, action: "escalate", qty: 3, notify: true, internal: "c" },
  ],
  itemsCount: 3,
};
const other: ReviewableGroup = {
  name: "other",
  title: "Other",
  columns: [{ key: "x", title: "X", type: "string", editable: true }],
  items: [{ x: "y" }],
  itemsCount: 1,
};

describe("the reviewer's edits to an approval's rows", () => {
  it("sends nothing while nothing changed, typing a cell back to its value included", () => {
    let drafts: Drafts = {};
    expect(editedItemsOf([rows, other], drafts)).toBeUndefined();
    drafts = setCell(drafts, "rows", 0, "qty", " 1 ");
    drafts = setCell(drafts, "rows", 1, "notify", false);
    expect(changesOf(rows, draftOf(drafts, "rows"))).toEqual({ kept: 3, removed: 0, editedCells: 0, problems: [] });
    expect(editedItemsOf([rows, other], drafts)).toBeUndefined();
  });

  it("sends only the changed group, its kept rows in order, typed by column and holding the columns only", () => {
    let drafts = setCell({}, "rows", 0, "action", "archive");
    drafts = setCell(drafts, "rows", 0, "qty", "2.5");
    drafts = setCell(drafts, "rows", 2, "notify", false);
    drafts = toggleRemoved(drafts, "rows", 1);
    expect(changesOf(rows, draftOf(drafts, "rows"))).toEqual({ kept: 2, removed: 1, editedCells: 3, problems: [] });
    expect(editedItemsOf([rows, other], drafts)).toEqual({
      rows: [
        { id: 1, action: "archive", qty: 2.5, notify: true },
        { id: 3, action: "escalate", qty: 3, notify: false },
      ],
    });
    expect(editedItemsOf([rows, other], toggleRemoved(resetGroup(drafts, "rows"), "rows", 1))).toEqual({
      rows: [
        { id: 1, action: "close", qty: 1, notify: true },
        { id: 3, action: "escalate", qty: 3, notify: true },
      ],
    });
  });

  it("removing every row sends an empty list, and a removed row's edits neither count nor block", () => {
    let drafts = setCell({}, "other", 0, "x", "z");
    drafts = toggleRemoved(drafts, "other", 0);
    expect(changesOf(other, draftOf(drafts, "other"))).toEqual({ kept: 0, removed: 1, editedCells: 0, problems: [] });
    expect(editedItemsOf([rows, other], drafts)).toEqual({ other: [] });
    expect(editedItemsOf([rows, other], toggleRemoved(drafts, "other", 0))).toEqual({ other: [{ x: "z" }] });
  });

  it("a number cell that holds no number is a problem at that cell", () => {
    const drafts = setCell(setCell({}, "rows", 1, "qty", ""), "rows", 2, "qty", "1e");
    expect(changesOf(rows, draftOf(drafts, "rows")).problems).toEqual([
      { row: 1, key: "qty", message: "enter a number" },
      { row: 2, key: "qty", message: "enter a number" },
    ]);
  });

  it("maps a 400's field, which counts the rows as sent, back to the row the reviewer sees", () => {
    const drafts = toggleRemoved({}, "rows", 0);
    expect(locateProblem("editedItems.rows[1].qty", [rows, other], drafts)).toEqual({
      group: "rows",
      row: 2,
      key: "qty",
    });
    expect(locateProblem("editedItems.rows[5].qty", [rows, other], drafts)).toBeNull();
    expect(locateProblem("editedItems.nope[0].qty", [rows, other], drafts)).toBeNull();
    expect(locateProblem("comment", [rows, other], drafts)).toBeNull();
  });

  it("names the rows' fields that are not columns", () => {
    expect(fieldsNotShown(rows)).toEqual(["internal"]);
    expect(fieldsNotShown(other)).toEqual([]);
  });
});
