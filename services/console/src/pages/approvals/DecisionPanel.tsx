import { useState } from "react";
import type { ApprovalView } from "../../api/types";
import { ConfirmDialog } from "../../ui/confirm";
import type { Decision } from "./decide";
import { changesOf, draftOf, isChanged, type Drafts } from "./rows";

/** What approving will run, in words: the rows as requested, or the kept and edited ones per changed group. */
function approvalSummary(approval: ApprovalView, drafts: Drafts): string {
  const step = `step ${approval.stepName}`;
  if (approval.reviewableGroups.length === 0) return `Approving lets ${step} run.`;
  const changed = approval.reviewableGroups
    .map((g) => ({ g, c: changesOf(g, draftOf(drafts, g.name)) }))
    .filter(({ c }) => isChanged(c))
    .map(({ g, c }) => {
      const parts = [
        c.removed > 0 ? `${c.removed} removed` : "",
        c.editedCells > 0 ? `${c.editedCells} cell${c.editedCells === 1 ? "" : "s"} edited` : "",
      ];
      return `${c.kept} of ${g.items.length} rows of “${g.title}” (${parts.filter(Boolean).join(", ")})`;
    });
  if (changed.length === 0) return `Approving runs ${step} with the rows as requested.`;
  return `Approving runs ${step} with your changes only: ${changed.join("; ")}.`;
}

/** The comment box, where "Skip to your decision" takes the focus: the next Tab is Reject, then Approve. */
export const DECISION_COMMENT = "decision-comment";

/** The reviewer's decision: approve with a comment, or reject with a reason after a confirmation. */
export function DecisionPanel({
  approval,
  drafts,
  decision,
  blocked,
}: {
  approval: ApprovalView;
  drafts: Drafts;
  decision: Decision;
  blocked: boolean;
}) {
  const [comment, setComment] = useState("");
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState("");

  return (
    <section className="card stack decision" aria-labelledby="decision-title">
      <h2 id="decision-title">Your decision</h2>
      <p className="decision-summary">{approvalSummary(approval, drafts)}</p>
      <label>
        Comment
        <span className="field-hint">Optional; kept on the record with your decision.</span>
        <textarea
          id={DECISION_COMMENT}
          rows={3}
          maxLength={10_000}
          value={comment}
          onChange={(e) => setComment(e.target.value)}
        />
      </label>
      {blocked ? (
        <div className="form-error">
          Some edited cells hold no valid value: fix them, or undo the change, before approving.
        </div>
      ) : null}
      {decision.problem ? (
        <div className="form-error" role="alert">
          {decision.problem.title}
          <ul>
            {decision.problem.lines.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="row end">
        <button
          type="button"
          className="danger-outline"
          disabled={decision.busy}
          onClick={() => {
            setReason(comment);
            setRejecting(true);
          }}
        >
          Reject…
        </button>
        <button
          type="button"
          className="primary"
          disabled={decision.busy || blocked}
          onClick={() => decision.decide("approve", comment)}
        >
          {decision.busy && decision.verb === "approve" ? "Approving…" : "Approve"}
        </button>
      </div>
      <ConfirmDialog
        open={rejecting}
        title="Reject this request?"
        confirmLabel={decision.busy && decision.verb === "reject" ? "Rejecting…" : "Reject"}
        danger
        busy={decision.busy}
        onCancel={() => setRejecting(false)}
        onConfirm={() => {
          decision.decide("reject", reason);
          setRejecting(false);
        }}
      >
        <p>
          Step <code>{approval.stepName}</code> will not run: the steps after it are skipped and the execution ends
          failed, its error naming your reason.
        </p>
        <label className="reject-reason">
          Reason
          <span className="field-hint">Optional; recorded with the rejection.</span>
          <textarea rows={3} maxLength={10_000} value={reason} onChange={(e) => setReason(e.target.value)} />
        </label>
      </ConfirmDialog>
    </section>
  );
}
