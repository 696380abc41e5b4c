import { forEachDiagnostic, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import type { EditorState, TransactionSpec } from "@codemirror/state";
import type { WorkflowIssue } from "@wf/shared/workflow";
import { issueMessage } from "./lint";

/**
 * The underlines of `state` left once those of problems `listed` (the page's list, which follows the typing at once)
 * no longer has are taken away, at once: the linter draws a new underline only after a pause in typing, and until
 * then the list would say "No problems" beside an underline it had already let go of. Null when every underline is
 * of a listed problem. A problem is the same by its message (its path and what is wrong): its line may have moved.
 */
export function unlistedUnderlinesGone(state: EditorState, listed: readonly WorkflowIssue[]): TransactionSpec | null {
  const messages = new Set(listed.map(issueMessage));
  const kept: Diagnostic[] = [];
  let gone = false;
  forEachDiagnostic(state, (diagnostic, from, to) => {
    if (messages.has(diagnostic.message)) kept.push({ ...diagnostic, from, to });
    else gone = true;
  });
  return gone ? setDiagnostics(state, kept) : null;
}
