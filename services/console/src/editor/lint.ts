import type { Text } from "@codemirror/state";
import { linter, type Diagnostic } from "@codemirror/lint";
import { parseWorkflow, type WorkflowIssue } from "@wf/shared/workflow";

/** The mistakes in a workflow file, as the service would report them on save. */
export function checkWorkflow(text: string): WorkflowIssue[] {
  const parsed = parseWorkflow(text);
  return parsed.ok ? [] : parsed.errors;
}

/** The document offset of a 1-based line and column, kept inside the document. */
export function offsetOf(doc: Text, line: number, column: number): number {
  const at = doc.line(Math.min(Math.max(line, 1), doc.lines));
  return Math.min(at.from + Math.max(column, 1) - 1, at.to);
}

/**
 * The span to underline for an issue: the issue gives only where its node starts, so the word
 * there (a key, a scalar, a quoted string), or the line's text when it points at no word.
 */
export function issueRange(doc: Text, issue: WorkflowIssue): { from: number; to: number } {
  const from = offsetOf(doc, issue.line, issue.column);
  const line = doc.lineAt(from);
  const word = /^("[^"\n]*"?|'[^'\n]*'?|[^\s,:{}[\]#]+)/.exec(doc.sliceString(from, line.to))?.[0] ?? "";
  if (word !== "") return { from, to: from + word.length };
  const start = line.from + (line.text.length - line.text.trimStart().length);
  return start < line.to ? { from: start, to: line.to } : { from, to: from };
}

/** What an underline of `issue` says: where in the workflow (its path), and what is wrong. */
export const issueMessage = (issue: WorkflowIssue): string =>
  issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`;

export function toDiagnostics(doc: Text, issues: readonly WorkflowIssue[]): Diagnostic[] {
  return issues.map((issue) => ({
    ...issueRange(doc, issue),
    severity: "error",
    source: "wf",
    message: issueMessage(issue),
  }));
}

/**
 * Issues found elsewhere (the service's answer to a save), held for the document they were shown
 * on: a check of that same document, already pending when they arrived, must not replace them.
 */
export interface StandingIssues {
  doc: Text;
  issues: readonly WorkflowIssue[];
}

/**
 * Validates as the person types (after a pause of 250 ms), underlining each mistake; while the document is the one
 * `standing()` holds issues for, those stay. The page lists the mistakes from the canvas's reading of the text, which
 * follows the typing at once (shownProblems): an underline of one it no longer lists goes then (listed-underlines.ts).
 */
export function workflowLinter(standing: () => StandingIssues | null) {
  return linter(
    (view) => {
      const held = standing();
      if (held !== null && held.doc === view.state.doc) return toDiagnostics(view.state.doc, held.issues);
      return toDiagnostics(view.state.doc, checkWorkflow(view.state.doc.toString()));
    },
    { delay: 250 },
  );
}
