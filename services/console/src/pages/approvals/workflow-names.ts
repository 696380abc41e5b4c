import { useQueries } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { WorkflowDetail } from "../../api/types";

/**
 * The names of the workflows approvals belong to (an approval names only the workflow's id), one
 * request per workflow; a deleted or unshared workflow has no name and is shown by its id.
 */
export function useWorkflowNames(ids: string[]): Map<string, string> {
  const unique = [...new Set(ids)];
  const results = useQueries({
    queries: unique.map((id) => ({
      queryKey: ["workflow-name", id],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        api<WorkflowDetail>("GET", `/api/console/workflows/${encodeURIComponent(id)}`, undefined, signal),
      select: (w: WorkflowDetail) => w.name,
      staleTime: 5 * 60_000,
    })),
  });
  const names = new Map<string, string>();
  unique.forEach((id, i) => {
    const name = results[i]?.data;
    if (name) names.set(id, name);
  });
  return names;
}
