import { formatAgo, formatNumber, formatTime } from "../../ui/format";
import { ErrorState, Loading } from "../../ui/states";
import type { WebhookStats } from "../../api/types";
import { useWebhookStats } from "./queries";

/**
 * Why a trigger gets each refusal, in the order the service checks (docs/webhooks.md, Order of
 * checks): said when the stats keep no reason of their own (counts from before reasons were kept).
 */
const REFUSALS: Record<string, string> = {
  "400": "invalid JSON, a required variable missing, or a variable of the wrong type",
  "401": "missing or wrong credential",
  "403": "source address not allowed, or the owner's plan or account",
  "404": "unknown webhook",
  "409": "disabled, or the workflow is gone",
  "413": "body over 1 MB",
  "429": "rate limited",
};

export function StatsCard({ webhookId }: { webhookId: string }) {
  const stats = useWebhookStats(webhookId);
  return (
    <section className="card stack" aria-labelledby="stats-title">
      <div className="row between">
        <h2 id="stats-title">Triggers</h2>
        <span className="muted small">refreshed every few seconds</span>
      </div>
      {stats.isPending ? (
        <Loading what="Loading the statistics" />
      ) : stats.isError ? (
        <ErrorState error={stats.error} retry={() => void stats.refetch()} />
      ) : (
        <StatsBody {...stats.data} />
      )}
    </section>
  );
}

function StatsBody({ total, accepted, rejected, lastRefusals, lastTriggeredAt }: WebhookStats) {
  const refused = Object.entries(rejected).sort(([a], [b]) => a.localeCompare(b));
  const refusedTotal = refused.reduce((sum, [, n]) => sum + n, 0);
  return (
    <>
      <dl className="wh-figures">
        <div>
          <dt>Total</dt>
          <dd>{formatNumber(total)}</dd>
        </div>
        <div>
          <dt>Accepted (202)</dt>
          <dd className="wh-ok">{formatNumber(accepted)}</dd>
        </div>
        <div>
          <dt>Rejected</dt>
          <dd className={refusedTotal > 0 ? "wh-bad" : undefined}>{formatNumber(refusedTotal)}</dd>
        </div>
      </dl>
      {total > 0 ? (
        <div className="wh-split" role="img" aria-label={`${accepted} accepted, ${refusedTotal} rejected`}>
          <div className="wh-split-ok" style={{ width: `${(accepted / total) * 100}%` }} />
          <div className="wh-split-bad" style={{ width: `${(refusedTotal / total) * 100}%` }} />
        </div>
      ) : null}
      <span className="muted small" title={formatTime(lastTriggeredAt)}>
        {lastTriggeredAt === null ? "Never triggered yet." : `Last triggered ${formatAgo(lastTriggeredAt)}.`}
      </span>
      {refused.length > 0 ? (
        <table aria-label="Rejected by status" className="wh-compact">
          <thead>
            <tr>
              <th>Status</th>
              <th>Why (the latest)</th>
              <th className="num">Count</th>
            </tr>
          </thead>
          <tbody>
            {refused.map(([status, count]) => (
              <tr key={status}>
                <td>
                  <code>{status}</code>
                </td>
                <td>
                  <RefusalReason status={status} latest={lastRefusals[status]} />
                </td>
                <td className="num">{formatNumber(count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </>
  );
}

/** The reason the service gave the latest refusal of a status, and when; or what the status generally means. */
function RefusalReason({
  status,
  latest,
}: {
  status: string;
  latest: WebhookStats["lastRefusals"][string] | undefined;
}) {
  if (!latest) return <span className="muted">{REFUSALS[status] ?? "refused"}</span>;
  return (
    <span className="stack wh-reason">
      <span className="wh-reason-text">{latest.message}</span>
      <span className="muted small" title={formatTime(latest.at)}>
        {formatAgo(latest.at)}
      </span>
    </span>
  );
}
