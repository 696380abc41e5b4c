import { Link } from "react-router";
import type { ExecutionView } from "../../api/types";

/** Each approval the run waits on, with the way to it: nothing goes on until someone decides. */
export function ApprovalWaits({ view }: { view: ExecutionView }) {
  const waiting = Object.entries(view.steps).filter(
    ([, step]) => step.status === "AWAITING_APPROVAL" && step.approvalId !== null,
  );
  return waiting.map(([path, step]) => (
    <div key={path} className="pause-banner" role="status">
      <span>
        <strong>Waiting for an approval</strong> at <code>{path}</code>: the run goes on once someone approves or
        rejects it.
      </span>
      <Link className="button primary" to={`/approvals/${encodeURIComponent(step.approvalId!)}`}>
        {waiting.length === 1 ? "Review the approval" : `Review the approval at ${path}`}
      </Link>
    </div>
  ));
}
