import { Link } from "react-router";
import type { UsageKey } from "../../api/types";
import { formatNumber } from "../../ui/format";

/** Warm colours as a key nears its limit: past it, every request of the window is a 429. */
function level(ratio: number): string {
  return ratio >= 0.9 ? "usage-high" : ratio >= 0.7 ? "usage-mid" : "usage-low";
}

function Meter({ label, count, limit }: { label: string; count: number; limit: number | null }) {
  if (limit === null)
    return (
      <div className="usage-meter-cell">
        <span className="small">
          {formatNumber(count)} <span className="muted">· no limit</span>
        </span>
      </div>
    );
  const ratio = limit > 0 ? Math.min(1, count / limit) : 1;
  return (
    <div className="usage-meter-cell">
      <div
        className="usage-track"
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={limit}
        aria-valuenow={count}
      >
        {/* A single request of 50,000 still shows: some use is never drawn as none. */}
        <div className={`usage-bar ${level(ratio)}`} style={{ width: count > 0 ? `max(2px, ${ratio * 100}%)` : 0 }} />
      </div>
      <span className="small num">
        {formatNumber(count)} / {formatNumber(limit)}
      </span>
    </div>
  );
}

/** Each live key's requests in the current minute and UTC day, against the plan's limits. */
export function KeyMeters({ keys, plan }: { keys: UsageKey[]; plan: string }) {
  return (
    <section className="usage-section" aria-labelledby="usage-keys-title">
      <div className="row between usage-head">
        <h2 id="usage-keys-title">API key requests</h2>
        <span className="muted small">
          Limits of the {plan} plan, per key; webhook triggers of a bound key count too.
        </span>
      </div>
      {keys.length === 0 ? (
        <div className="card muted">
          No live API key. <Link to="/keys">Make one</Link> to call the API or bind a webhook.
        </div>
      ) : (
        <div className="table-wrap">
          <table aria-labelledby="usage-keys-title">
            <thead>
              <tr>
                <th>Key</th>
                <th>This minute</th>
                <th>Today (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <Meter label={`${k.name}: requests this minute`} count={k.minute.count} limit={k.minute.limit} />
                  </td>
                  <td>
                    <Meter label={`${k.name}: requests today`} count={k.day.count} limit={k.day.limit} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
