import type { CanvasIssue } from "@wf/shared/canvas";

/**
 * The problems the canvas banner lists, in the order of the text (by line, then column): each once, though the graph
 * may hold the same mistake twice (a duplicate name on both steps that have it is one problem).
 */
export function bannerProblems(issues: readonly CanvasIssue[]): CanvasIssue[] {
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

/** "1 problem", "3 problems". */
export function problemCount(count: number): string {
  return `${count} ${count === 1 ? "problem" : "problems"}`;
}
