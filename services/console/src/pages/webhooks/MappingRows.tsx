import { nextRowId, type MappingRow, type Problems } from "./form-state";
import { FieldNote } from "./Field";

/** Variable ← top-level payload field, one row each (docs/webhooks.md, Variables). */
export function MappingRows({
  rows,
  problems,
  onChange,
}: {
  rows: MappingRow[];
  problems: Problems;
  onChange(rows: MappingRow[]): void;
}) {
  const change = (id: number, patch: Partial<MappingRow>) =>
    onChange(rows.map((r) => (r.id === id ? { ...r, ...patch } : r)));
  return (
    <div className="stack wh-tight">
      {rows.length === 0 ? (
        <span className="muted small">No field is mapped: no variable is set from the payload.</span>
      ) : null}
      {rows.map((row, i) => (
        <div key={row.id} className="stack wh-tight">
          <div className="row wh-nowrap">
            <input
              className="mono wh-grow"
              aria-label={`Variable ${i + 1}`}
              placeholder="variable"
              value={row.variable}
              aria-invalid={problems[`mapping:${row.id}`] ? true : undefined}
              onChange={(e) => change(row.id, { variable: e.target.value })}
            />
            <span className="muted" aria-hidden="true">
              ←
            </span>
            <input
              className="mono wh-grow"
              aria-label={`Payload field ${i + 1}`}
              placeholder="payload field"
              value={row.field}
              aria-invalid={problems[`mapping:${row.id}`] ? true : undefined}
              onChange={(e) => change(row.id, { field: e.target.value })}
            />
            <button
              type="button"
              className="ghost"
              aria-label={`Remove mapping ${i + 1}`}
              onClick={() => onChange(rows.filter((r) => r.id !== row.id))}
            >
              ✕
            </button>
          </div>
          <FieldNote problem={problems[`mapping:${row.id}`]} />
        </div>
      ))}
      <div>
        <button type="button" onClick={() => onChange([...rows, { id: nextRowId(), variable: "", field: "" }])}>
          Add a mapping
        </button>
      </div>
    </div>
  );
}
