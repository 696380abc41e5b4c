import { Link } from "react-router";
import type { ApprovalView, ExecutionView } from "../../api/types";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatDuration, formatTime } from "../../ui/format";
import { formatRelative } from "./time";

/** What the request is about: its message, where it comes from, and its deadline. */
export function ApprovalContext(props: {
  approval: ApprovalView;
  workflowName: string | undefined;
  execution: ExecutionView | undefined;
  now: number;
}) {
  const { approval, execution, now } = props;
  const expired = approval.expiresAt <= now;
  return (
    <section className="card stack" aria-label="Request">
      {approval.stepTest ? (
        <p className="muted">
          A step test asks this: the step ran alone from the editor (Run this step), not in a production run. Deciding
          it affects that test alone.
        </p>
      ) : null}
      {approval.approvalMessage ? (
        <p className="approval-message">{approval.approvalMessage}</p>
      ) : (
        <p className="muted">The step asks for approval without a message.</p>
      )}
      <dl className="facts">
        <div>
          <dt>Workflow</dt>
          <dd>
            <Link to={`/workflows/${approval.workflowId}`}>{props.workflowName ?? approval.workflowId}</Link>
          </dd>
        </div>
        <div>
          <dt>Step</dt>
          <dd>
            <code>{approval.stepName}</code>
          </dd>
        </div>
        <div>
          <dt>Execution</dt>
          <dd className="row">
            <Link to={`/executions/${approval.executionId}`} className="mono">
              {approval.executionId}
            </Link>
            {execution ? <StatusBadge status={execution.status} /> : null}
          </dd>
        </div>
        <div>
          <dt>Requested</dt>
          <dd title={formatTime(approval.createdAt)}>
            {formatTime(approval.createdAt)} <span className="muted">({formatRelative(approval.createdAt, now)})</span>
          </dd>
        </div>
        <div>
          <dt>{approval.status === "PENDING" && expired ? "Expired" : "Expires"}</dt>
          <dd className={approval.status === "PENDING" && expired ? "expired-text" : undefined}>
            {formatTime(approval.expiresAt)}{" "}
            <span className="muted">
              ({approval.status === "PENDING" ? `${formatRelative(approval.expiresAt, now)}, ` : ""}timeout{" "}
              {formatDuration(approval.timeout * 1000)})
            </span>
          </dd>
        </div>
      </dl>
    </section>
  );
}
