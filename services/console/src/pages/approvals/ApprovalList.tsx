import { Link } from "react-router";
import type { ApprovalView } from "../../api/types";
import { ActionsHeader } from "../../ui/ActionsHeader";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatTime } from "../../ui/format";
import { When } from "../../ui/When";
import { useNarrow } from "./narrow";
import { StepTestBadge } from "./StepTestBadge";
import { formatRelative, useNow } from "./time";
import { useWorkflowNames } from "./workflow-names";

function rowCount(approval: ApprovalView): string {
  const rows = approval.reviewableGroups.reduce((n, g) => n + g.itemsCount, 0);
  const groups = approval.reviewableGroups.length;
  if (groups === 0) return "—";
  return `${rows} row${rows === 1 ? "" : "s"}${groups > 1 ? ` in ${groups} groups` : ""}`;
}

function Expires({ approval, now }: { approval: ApprovalView; now: number }) {
  const past = approval.expiresAt <= now;
  return (
    <time
      dateTime={new Date(approval.expiresAt).toISOString()}
      title={formatTime(approval.expiresAt)}
      className={past ? "expired-text" : undefined}
    >
      {past ? `expired ${formatRelative(approval.expiresAt, now)}` : formatRelative(approval.expiresAt, now)}
    </time>
  );
}

/**
 * Approvals as a table, or as cards on a phone where a wide table would not fit; `history` shows
 * the decisions instead of the deadlines.
 */
export function ApprovalList({ approvals, history }: { approvals: ApprovalView[]; history: boolean }) {
  const names = useWorkflowNames(approvals.map((a) => a.workflowId));
  const now = useNow();
  const narrow = useNarrow();
  const nameOf = (a: ApprovalView) => names.get(a.workflowId) ?? a.workflowId;

  if (narrow) {
    return (
      <ul className="approval-cards" aria-label="Approvals">
        {approvals.map((a) => (
          <li key={a.id}>
            <Link className="card approval-card" to={`/approvals/${a.id}`}>
              <div className="row between">
                <strong className="approval-card-title">
                  {nameOf(a)} {a.stepTest ? <StepTestBadge /> : null}
                </strong>
                <StatusBadge status={a.status} />
              </div>
              <div className="muted small">
                step <code>{a.stepName}</code> · {rowCount(a)}
              </div>
              {a.approvalMessage ? <div className="approval-message-clip">{a.approvalMessage}</div> : null}
              <div className="muted small">
                requested <When at={a.createdAt} ago /> ·{" "}
                {history && a.status !== "PENDING" ? (
                  <>
                    decided <When at={a.decidedAt} ago />
                  </>
                ) : (
                  <>
                    expires <Expires approval={a} now={now} />
                  </>
                )}
              </div>
            </Link>
          </li>
        ))}
      </ul>
    );
  }

  return (
    <div className="table-wrap">
      <table className="approvals-table">
        <thead>
          <tr>
            <th>Workflow</th>
            <th>Step</th>
            <th>Request</th>
            {history ? <th>Status</th> : <th>Rows</th>}
            <th>Requested</th>
            {history ? <th>Decided</th> : <th>Expires</th>}
            {history ? <th>Comment</th> : null}
            <ActionsHeader label="Open" />
          </tr>
        </thead>
        <tbody>
          {approvals.map((a) => (
            <tr key={a.id}>
              <td>
                <Link to={`/approvals/${a.id}`}>{nameOf(a)}</Link> {a.stepTest ? <StepTestBadge /> : null}
              </td>
              <td>
                <code>{a.stepName}</code>
              </td>
              <td className="approval-message-cell">
                <div className="approval-message-clip">{a.approvalMessage || <span className="muted">—</span>}</div>
              </td>
              <td>{history ? <StatusBadge status={a.status} /> : rowCount(a)}</td>
              <td>
                <When at={a.createdAt} ago />
              </td>
              <td>{history ? <When at={a.decidedAt} ago /> : <Expires approval={a} now={now} />}</td>
              {history ? (
                <td className="approval-message-cell">
                  {a.comment ? (
                    <div className="approval-message-clip">{a.comment}</div>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
              ) : null}
              <td className="num">
                <Link
                  className="button"
                  to={`/approvals/${a.id}`}
                  aria-label={`${history ? "Open" : "Review"} ${nameOf(a)}, step ${a.stepName}`}
                >
                  {history ? "Open" : "Review"}
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
