import { useEffect, useRef } from "react";
import { Link } from "react-router";
import type { ApprovalView, ExecutionView } from "../../api/types";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatTime } from "../../ui/format";

const HEADLINE: Record<string, string> = {
  APPROVED: "Approved",
  REJECTED: "Rejected",
  EXPIRED: "Expired: nobody decided in time",
  CANCELLED: "Cancelled: its execution was cancelled or ended",
};

function consequence(approval: ApprovalView): string {
  if (approval.status === "APPROVED") {
    const edited = Object.entries(approval.editedItems ?? {});
    if (edited.length === 0) return `Step ${approval.stepName} was given the rows as requested.`;
    const groups = edited.map(([name, rows]) => {
      const title = approval.reviewableGroups.find((g) => g.name === name)?.title ?? name;
      return `${rows.length} row${rows.length === 1 ? "" : "s"} of “${title}”`;
    });
    return `Step ${approval.stepName} was given the edited rows only: ${groups.join("; ")}.`;
  }
  if (approval.status === "CANCELLED") return `Step ${approval.stepName} did not run.`;
  return `Step ${approval.stepName} did not run: the steps after it are skipped and the execution ends failed.`;
}

/** How a request was decided and what follows, with the execution's live status and a way to it. */
export function Outcome({
  approval,
  execution,
  me,
  justDecided,
  lost,
}: {
  approval: ApprovalView;
  execution: ExecutionView | undefined;
  me: string | null;
  justDecided: boolean;
  /** Why this person's own decision did not count (someone decided first), kept in view with the decision that did. */
  lost: string | null;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    // The decision is made at the foot of the page: its outcome replaces the form there, so it is brought into view.
    if (justDecided || lost) ref.current?.scrollIntoView({ block: "nearest" });
  }, [justDecided, lost]);
  const by =
    approval.decidedBy === null
      ? null
      : approval.decidedBy === me
        ? "you"
        : approval.decidedBy === "timeout"
          ? "the timeout"
          : approval.decidedBy;
  return (
    <section
      ref={ref}
      className={`card stack outcome outcome-${approval.status.toLowerCase()}`}
      aria-labelledby="outcome-title"
    >
      <h2 id="outcome-title">{HEADLINE[approval.status] ?? approval.status}</h2>
      {lost ? (
        <div className="form-error" role="alert">
          {lost}
        </div>
      ) : null}
      {by ? (
        <p>
          Decided by {by}
          {approval.decidedAt !== null ? ` on ${formatTime(approval.decidedAt)}` : ""}.
        </p>
      ) : null}
      {approval.comment ? (
        <blockquote className="decision-comment">
          <span className="muted small">{approval.status === "REJECTED" ? "Reason" : "Comment"}</span>
          <div>{approval.comment}</div>
        </blockquote>
      ) : null}
      <p>{consequence(approval)}</p>
      <div className="row">
        <span>Execution:</span>
        {execution ? <StatusBadge status={execution.status} /> : null}
        <Link to={`/executions/${approval.executionId}`}>Open the execution</Link>
      </div>
      {execution?.error ? <p className="muted small">{execution.error}</p> : null}
    </section>
  );
}
