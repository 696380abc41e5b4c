import type { WorkflowIssue } from "../../api/types";

/** Where each mistake is, in words: "line 4, column 9: steps[0].type: …". */
export function describeIssue(issue: WorkflowIssue): string {
  return `line ${issue.line}, column ${issue.column}: ${issue.path === "" ? "" : `${issue.path}: `}${issue.message}`;
}

/**
 * The mistakes under the editor, each a button that puts the cursor on it (the banner above the canvas lists the same,
 * shownProblems); `fromService` marks those the service answered a save with.
 */
export function ProblemsPanel({
  issues,
  fromService,
  onPick,
}: {
  issues: readonly WorkflowIssue[];
  fromService: boolean;
  onPick(issue: WorkflowIssue): void;
}) {
  return (
    <section className="problems" aria-label="Problems">
      <div className="problems-head">
        <h2>Problems</h2>
        {issues.length > 0 ? <span className="badge status-failed">{issues.length}</span> : null}
        {fromService ? <span className="muted small">found by the service when you saved</span> : null}
      </div>
      {issues.length === 0 ? (
        <p className="muted small problems-ok">No problems: the workflow is valid.</p>
      ) : (
        <ul>
          {issues.map((issue, i) => (
            <li key={`${issue.line}:${issue.column}:${i}`}>
              <button type="button" className="problem" onClick={() => onPick(issue)}>
                {describeIssue(issue)}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
