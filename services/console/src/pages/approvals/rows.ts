import type { ApprovalColumn, ReviewableGroup } from "../../api/types";

export type Row = Record<string, unknown>;

/** What the reviewer put in a cell: text as typed (a number column's is parsed when read), a checkbox's state. */
export type CellDraft = string | boolean;

/** A reviewer's changes to one group, by the row's index among the group's original rows. */
export interface GroupDraft {
  removed: number[];
  cells: Record<number, Record<string, CellDraft>>;
}

export type Drafts = Record<string, GroupDraft>;

const UNCHANGED: GroupDraft = { removed: [], cells: {} };

export function draftOf(drafts: Drafts, group: string): GroupDraft {
  return drafts[group] ?? UNCHANGED;
}

/** A cell's value as its editor starts: the text of a string or number, the state of a boolean. */
export function cellText(column: ApprovalColumn, value: unknown): CellDraft {
  if (column.type === "boolean") return value === true;
  if (value === undefined || value === null) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

export interface CellValue {
  value: unknown;
  /** Why the reviewer's text cannot be sent (a number column holding something else), or null. */
  problem: string | null;
  edited: boolean;
}

/** A cell as it would be sent: the reviewer's edit typed by its column, else the original value. */
export function cellValue(column: ApprovalColumn, original: unknown, draft: CellDraft | undefined): CellValue {
  if (draft === undefined) return { value: original, problem: null, edited: false };
  let value: unknown;
  let problem: string | null = null;
  if (column.type === "boolean") value = draft === true;
  else if (column.type === "string") value = String(draft);
  else {
    const text = String(draft).trim();
    value = Number(text);
    if (text === "" || !Number.isFinite(value)) problem = "enter a number";
  }
  return { value, problem, edited: problem !== null || value !== original };
}

export function setCell(drafts: Drafts, group: string, row: number, key: string, draft: CellDraft): Drafts {
  const current = draftOf(drafts, group);
  return {
    ...drafts,
    [group]: { ...current, cells: { ...current.cells, [row]: { ...current.cells[row], [key]: draft } } },
  };
}

export function toggleRemoved(drafts: Drafts, group: string, row: number): Drafts {
  const current = draftOf(drafts, group);
  const removed = current.removed.includes(row)
    ? current.removed.filter((r) => r !== row)
    : [...current.removed, row].sort((a, b) => a - b);
  return { ...drafts, [group]: { ...current, removed } };
}

export function resetGroup(drafts: Drafts, group: string): Drafts {
  const next = { ...drafts };
  delete next[group];
  return next;
}

export interface CellProblem {
  row: number;
  key: string;
  message: string;
}

export interface GroupChanges {
  kept: number;
  removed: number;
  editedCells: number;
  problems: CellProblem[];
}

/** What the reviewer changed in a group; the edits of a removed row do not count, since it is not sent. */
export function changesOf(group: ReviewableGroup, draft: GroupDraft): GroupChanges {
  let editedCells = 0;
  const problems: CellProblem[] = [];
  group.items.forEach((item, row) => {
    if (draft.removed.includes(row)) return;
    for (const column of group.columns) {
      const cell = cellValue(column, item[column.key], draft.cells[row]?.[column.key]);
      if (cell.edited) editedCells++;
      if (cell.problem) problems.push({ row, key: column.key, message: cell.problem });
    }
  });
  return { kept: group.items.length - draft.removed.length, removed: draft.removed.length, editedCells, problems };
}

export function isChanged(changes: GroupChanges): boolean {
  return changes.removed > 0 || changes.editedCells > 0;
}

/**
 * The rows of a changed group as the API takes them (docs/api.md, Approvals): the kept rows in
 * their order, each holding only the group's columns, since a field that is not a column is refused.
 */
function rowsToSend(group: ReviewableGroup, draft: GroupDraft): Row[] {
  const rows: Row[] = [];
  group.items.forEach((item, row) => {
    if (draft.removed.includes(row)) return;
    const sent: Row = {};
    for (const column of group.columns) {
      const cell = cellValue(column, item[column.key], draft.cells[row]?.[column.key]);
      if (cell.value !== undefined) sent[column.key] = cell.value;
    }
    rows.push(sent);
  });
  return rows;
}

/**
 * `editedItems` of the approve body: the changed groups only (the others keep their rows), or undefined when nothing
 * changed.
 */
export function editedItemsOf(groups: ReviewableGroup[], drafts: Drafts): Record<string, Row[]> | undefined {
  const edited: Record<string, Row[]> = {};
  for (const group of groups) {
    const draft = draftOf(drafts, group.name);
    if (isChanged(changesOf(group, draft))) edited[group.name] = rowsToSend(group, draft);
  }
  return Object.keys(edited).length > 0 ? edited : undefined;
}

/** The fields of the rows that are not columns: the reviewer does not see them, and edited rows cannot carry them. */
export function fieldsNotShown(group: ReviewableGroup): string[] {
  const columns = new Set(group.columns.map((c) => c.key));
  const others = new Set<string>();
  for (const item of group.items) for (const key of Object.keys(item)) if (!columns.has(key)) others.add(key);
  return [...others];
}

export interface LocatedProblem {
  group: string;
  /** The row's index among the group's original rows. */
  row: number;
  key: string;
}

/**
 * The cell a 400's field names, `editedItems.<group>[<i>].<key>`: `i` counts the rows as sent,
 * which are the kept ones, so it is mapped back to the row the reviewer sees.
 */
export function locateProblem(field: string, groups: ReviewableGroup[], drafts: Drafts): LocatedProblem | null {
  const match = /^editedItems\.(.+)\[(\d+)\]\.(.+)$/.exec(field);
  if (!match) return null;
  const [, name = "", index = "", key = ""] = match;
  const group = groups.find((g) => g.name === name);
  if (!group) return null;
  const removed = draftOf(drafts, name).removed;
  const kept = group.items.map((_, row) => row).filter((row) => !removed.includes(row));
  const row = kept[Number(index)];
  return row === undefined ? null : { group: name, row, key };
}
