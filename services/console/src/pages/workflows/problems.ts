import type { WorkflowIssue } from "../../api/types";

/** The service's answer to a save of `text`: the mistakes it found there (some only it knows, as the plan's bounds). */
export interface ServiceIssues {
  text: string;
  issues: readonly WorkflowIssue[];
}

/**
 * The problems of the text, in the order of the text (by line, then column): each once, though the graph may hold the
 * same mistake twice (a duplicate name on both steps that have it is one problem).
 */
export function inTextOrder<T extends WorkflowIssue>(issues: readonly T[]): T[] {
  const seen = new Set<string>();
  return [...issues]
    .sort((a, b) => a.line - b.line || a.column - b.column)
    .filter((issue) => {
      const key = `${issue.line}:${issue.column}:${issue.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/**
 * The one list of problems the editor's page shows, under the editor and above the canvas, for `text` as the canvas
 * read it (`found`, its graph's issues): the service's answer while it is about that very text, else what the canvas
 * found. Both places show this list, so they never disagree; it follows the typing as the canvas does, where the
 * editor's underlines wait for a pause to appear (and go as soon as it no longer lists theirs: useProblemList).
 */
export function shownProblems(
  text: string,
  found: readonly WorkflowIssue[],
  service: ServiceIssues | null,
): { issues: WorkflowIssue[]; fromService: boolean } {
  const fromService = service !== null && service.text === text;
  return { issues: inTextOrder(fromService ? service.issues : found), fromService };
}

/** "1 problem", "3 problems". */
export function problemCount(count: number): string {
  return `${count} ${count === 1 ? "problem" : "problems"}`;
}
