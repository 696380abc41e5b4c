import { nextRowId, type IpRow, type Problems } from "./form-state";
import { FieldNote } from "./Field";

/** The source allow-list, one address or CIDR range a row; none allows every address. */
export function SourceIpRows({
  rows,
  problems,
  onChange,
}: {
  rows: IpRow[];
  problems: Problems;
  onChange(rows: IpRow[]): void;
}) {
  return (
    <div className="stack wh-tight">
      {rows.length === 0 ? <span className="muted small">Any source address may trigger it.</span> : null}
      {rows.map((row, i) => (
        <div key={row.id} className="stack wh-tight">
          <div className="row wh-nowrap">
            <input
              className="mono wh-grow"
              aria-label={`Source address ${i + 1}`}
              placeholder="203.0.113.7 or 10.0.0.0/8"
              value={row.value}
              aria-invalid={problems[`ip:${row.id}`] ? true : undefined}
              onChange={(e) => onChange(rows.map((r) => (r.id === row.id ? { ...r, value: e.target.value } : r)))}
            />
            <button
              type="button"
              className="ghost"
              aria-label={`Remove source address ${i + 1}`}
              onClick={() => onChange(rows.filter((r) => r.id !== row.id))}
            >
              ✕
            </button>
          </div>
          <FieldNote problem={problems[`ip:${row.id}`]} />
        </div>
      ))}
      <div>
        <button type="button" onClick={() => onChange([...rows, { id: nextRowId(), value: "" }])}>
          Add an address
        </button>
      </div>
    </div>
  );
}
