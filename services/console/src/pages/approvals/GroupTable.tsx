import type { ApprovalColumn, ReviewableGroup } from "../../api/types";
import { cellKey } from "./decide";
import { cellText, cellValue, changesOf, fieldsNotShown, isChanged, type CellDraft, type GroupDraft } from "./rows";

function shown(value: unknown): string {
  if (value === undefined || value === null) return "—";
  if (typeof value === "boolean") return value ? "yes" : "no";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function Cell(props: {
  column: ApprovalColumn;
  row: number;
  original: unknown;
  draft: CellDraft | undefined;
  editing: boolean;
  problem: string | undefined;
  problemId: string;
  onChange(draft: CellDraft): void;
}) {
  const { column, row, original, draft, problem, problemId } = props;
  const cell = cellValue(column, original, draft);
  const label = `${column.title}, row ${row + 1}`;
  const describedBy = problem ? problemId : undefined;
  const text = draft ?? cellText(column, original);
  let control;
  if (!props.editing || !column.editable)
    control = <span className={cell.edited ? "cell-value edited" : "cell-value"}>{shown(cell.value)}</span>;
  else if (column.type === "boolean")
    control = (
      <input
        type="checkbox"
        aria-label={label}
        aria-invalid={problem ? true : undefined}
        aria-describedby={describedBy}
        checked={text === true}
        onChange={(e) => props.onChange(e.target.checked)}
      />
    );
  else
    control = (
      <input
        type={column.type === "number" ? "number" : "text"}
        step={column.type === "number" ? "any" : undefined}
        className="cell-input"
        aria-label={label}
        aria-invalid={problem ? true : undefined}
        aria-describedby={describedBy}
        value={String(text)}
        onChange={(e) => props.onChange(e.target.value)}
      />
    );
  return (
    <div>
      {control}
      {problem ? (
        <div id={problemId} className="cell-problem">
          {problem}
        </div>
      ) : null}
    </div>
  );
}

/**
 * One reviewable group as a table: editable columns as inputs typed by column, rows removed and
 * restored, what changed marked. Read-only once decided (or for a viewer of a decided record).
 */
export function GroupTable(props: {
  group: ReviewableGroup;
  draft: GroupDraft;
  editing: boolean;
  caption?: string;
  serverProblems: Map<string, string>;
  onCell(row: number, key: string, draft: CellDraft): void;
  onToggleRow(row: number): void;
  onReset(): void;
}) {
  const { group, draft, editing } = props;
  const changes = changesOf(group, draft);
  const clientProblems = new Map(changes.problems.map((p) => [cellKey(group.name, p.row, p.key), p.message]));
  const hidden = fieldsNotShown(group);
  const headingId = `group-${group.name}`;

  return (
    <section className="card stack approval-group" aria-labelledby={headingId}>
      <div className="row between">
        <div>
          <h2 id={headingId}>{group.title}</h2>
          <div className="muted small">
            {props.caption ??
              (editing
                ? `${changes.kept} of ${group.items.length} row${group.items.length === 1 ? "" : "s"} will run` +
                  (changes.editedCells > 0
                    ? ` · ${changes.editedCells} cell${changes.editedCells === 1 ? "" : "s"} edited`
                    : "")
                : `${group.items.length} row${group.items.length === 1 ? "" : "s"}`)}
          </div>
        </div>
        {editing ? (
          <button type="button" onClick={props.onReset} disabled={!isChanged(changes) && changes.problems.length === 0}>
            Undo changes
          </button>
        ) : null}
      </div>
      {editing && hidden.length > 0 ? (
        <p className="muted small">
          The rows also hold <code>{hidden.join(", ")}</code>, not shown as columns: if you change this group, its rows
          are sent with the shown columns only, as the API accepts no other field.
        </p>
      ) : null}
      {group.items.length === 0 ? (
        <p className="muted">No rows.</p>
      ) : (
        <div className="table-wrap">
          <table className="review-table">
            <thead>
              <tr>
                <th className="num">#</th>
                {group.columns.map((c) => (
                  <th key={c.key} className={c.type === "number" ? "num" : undefined}>
                    {c.title}
                    {editing && c.editable ? (
                      <span className="editable-mark" title="You can edit this column" aria-label="(editable)">
                        {" "}
                        ✎
                      </span>
                    ) : null}
                  </th>
                ))}
                {editing ? (
                  <th>
                    <span className="sr-only">Row</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {group.items.map((item, row) => {
                const removed = draft.removed.includes(row);
                return (
                  <tr key={row} className={removed ? "row-removed" : undefined}>
                    <td className="num muted" data-label="Row">
                      <span>
                        {row + 1}
                        {removed ? <span className="removed-note">removed</span> : null}
                      </span>
                    </td>
                    {group.columns.map((column) => {
                      const key = cellKey(group.name, row, column.key);
                      const cellDraft = draft.cells[row]?.[column.key];
                      const edited = cellValue(column, item[column.key], cellDraft).edited;
                      return (
                        <td
                          key={column.key}
                          data-label={column.title}
                          className={
                            [column.type === "number" ? "num" : "", edited && !removed ? "cell-edited" : ""]
                              .join(" ")
                              .trim() || undefined
                          }
                        >
                          <Cell
                            column={column}
                            row={row}
                            original={item[column.key]}
                            draft={cellDraft}
                            editing={editing && !removed}
                            problem={removed ? undefined : (props.serverProblems.get(key) ?? clientProblems.get(key))}
                            problemId={`problem-${group.name}-${row}-${column.key}`}
                            onChange={(d) => props.onCell(row, column.key, d)}
                          />
                        </td>
                      );
                    })}
                    {editing ? (
                      <td className="num row-action">
                        <button
                          type="button"
                          className={removed ? undefined : "ghost"}
                          onClick={() => props.onToggleRow(row)}
                          aria-label={`${removed ? "Restore" : "Remove"} row ${row + 1}`}
                        >
                          {removed ? "Restore" : "Remove"}
                        </button>
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
