import type { ExecutionList, ExecutionSummary } from "../../api/types";

/**
 * The rows of the pages fetched so far, each execution once. A page's cursor is an offset: an execution that starts
 * between two pages' fetches pushes the list down, and the later page repeats the rows it pushed (a refetch puts every
 * page right, a moment later).
 */
export function listRows(pages: readonly ExecutionList[]): ExecutionSummary[] {
  const seen = new Set<string>();
  const rows: ExecutionSummary[] = [];
  for (const page of pages)
    for (const item of page.items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      rows.push(item);
    }
  return rows;
}
