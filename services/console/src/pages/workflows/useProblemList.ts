import { useLayoutEffect, useMemo, type RefObject } from "react";
import type { WorkflowIssue } from "../../api/types";
import type { WorkflowEditor } from "../../editor";
import { shownProblems, type ServiceIssues } from "./problems";

/**
 * The one list of problems the page shows (shownProblems, of `text` as the canvas read it), with the editor's
 * underlines kept to it as it changes: one of a problem it no longer lists goes in the same frame, where the linter
 * would take it away only a pause after the typing.
 */
export function useProblemList(
  editor: RefObject<WorkflowEditor | null>,
  text: string,
  found: readonly WorkflowIssue[],
  service: ServiceIssues | null,
): { issues: WorkflowIssue[]; fromService: boolean } {
  const problems = useMemo(() => shownProblems(text, found, service), [text, found, service]);
  // Before the frame is drawn, so that the list and the underlines change in the same one.
  useLayoutEffect(() => editor.current?.listProblems(problems.issues), [editor, problems]);
  return problems;
}
