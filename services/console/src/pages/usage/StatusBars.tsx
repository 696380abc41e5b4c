import type { UsageView } from "../../api/types";
import { formatNumber } from "../../ui/format";
import { StatusBadge } from "../../ui/StatusBadge";

/** Executions of the window by their status now, busiest first. */
export function StatusBars({ byStatus }: { byStatus: UsageView["byStatus"] }) {
  const rows = Object.entries(byStatus)
    .filter((entry): entry is [string, number] => (entry[1] ?? 0) > 0)
    .sort(([, a], [, b]) => b - a);
  const max = Math.max(1, ...rows.map(([, n]) => n));
  return (
    <section className="usage-section" aria-labelledby="usage-status-title">
      <h2 id="usage-status-title">Executions by status</h2>
      <div className="card">
        <ul className="usage-statuses">
          {rows.map(([status, count]) => (
            <li key={status}>
              <StatusBadge status={status} />
              <div className="usage-track">
                <div
                  className={`usage-bar status-${status.toLowerCase()}`}
                  style={{ width: `${(count / max) * 100}%` }}
                />
              </div>
              <span className="num">{formatNumber(count)}</span>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
