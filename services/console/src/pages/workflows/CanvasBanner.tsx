import { useId } from "react";
import type { WorkflowIssue } from "../../api/types";
import { problemCount } from "./problems";

/**
 * Why the canvas is not the text as it is: how many problems the text has, and each of them (line:column and message)
 * as a button that puts the editor's cursor on it, as a step's mark does: the list under the editor (shownProblems).
 * Only the count is announced as it changes: the list is read where the author goes to it.
 */
export function CanvasBanner({
  problems,
  stale,
  onIssue,
}: {
  problems: readonly WorkflowIssue[];
  stale: boolean;
  onIssue(issue: WorkflowIssue): void;
}) {
  const headId = useId();
  if (problems.length === 0) return null;
  return (
    <div className="canvas-banner">
      <p className="canvas-banner-head" id={headId} role="status">
        <strong>{stale ? "The canvas shows the last valid version." : "The canvas shows what could be read."}</strong>{" "}
        {problemCount(problems.length)} in the YAML:
      </p>
      <ul className="canvas-banner-list" aria-labelledby={headId}>
        {problems.map((issue, i) => (
          <li key={`${issue.line}:${issue.column}:${i}`}>
            <button type="button" className="canvas-banner-issue" onClick={() => onIssue(issue)}>
              <span className="canvas-banner-at">
                line {issue.line}:{issue.column}
              </span>{" "}
              {issue.message}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
