import { useQuery } from "@tanstack/react-query";
import { api, apiGet, query } from "../../api/client";
import type { ExecutionList, ExecutionView, StepDetail, WorkflowList } from "../../api/types";
import type { ListFilters } from "./list-filters";

/** The query keys of the executions pages: one place, so live updates patch what the pages read. */
export const keys = {
  lists: ["executions"] as const,
  list: (filters: ListFilters) => ["executions", filters] as const,
  execution: (id: string) => ["execution", id] as const,
  step: (id: string, path: string) => ["execution", id, "step", path] as const,
  workflowNames: ["workflow-names"] as const,
  /** Not under `lists`: the list page's live updates patch those as pages of an infinite query. */
  runsOf: (workflowId: string) => ["runs-of", workflowId] as const,
};

export const PAGE_SIZE = 50;

export function fetchExecutionPage(
  filters: ListFilters,
  cursor: string | undefined,
  signal: AbortSignal,
): Promise<ExecutionList> {
  return api<ExecutionList>(
    "GET",
    `/api/console/executions${query({ ...filters, cursor, limit: PAGE_SIZE })}`,
    undefined,
    signal,
  );
}

/** The newest page of a workflow's runs (step tests left out), as "Compare with…" and the run form offer them. */
export function useRunsOf(workflowId: string) {
  return useQuery({
    queryKey: keys.runsOf(workflowId),
    queryFn: ({ signal }) => fetchExecutionPage({ workflowId }, undefined, signal),
  });
}

const REVISION_HEADER = "x-execution-revision";
/** Executions whose last revision is kept; past it the oldest goes (a view read again then may come from any replica). */
const REVISIONS_KEPT = 200;
/** The highest revision of each execution's view read so far, sent back so that no refetch shows an older one. */
const revisions = new Map<string, number>();

export async function fetchExecution(id: string, signal?: AbortSignal): Promise<ExecutionView> {
  const seen = revisions.get(id);
  const { body, headers } = await apiGet<ExecutionView>(
    `/api/console/executions/${encodeURIComponent(id)}`,
    seen === undefined ? {} : { [REVISION_HEADER]: String(seen) },
    signal,
  );
  const revision = Number(headers.get(REVISION_HEADER) ?? NaN);
  if (Number.isSafeInteger(revision) && revision > (seen ?? -1)) {
    revisions.delete(id);
    revisions.set(id, revision);
    if (revisions.size > REVISIONS_KEPT) revisions.delete(revisions.keys().next().value!);
  }
  return body;
}

export function fetchStep(id: string, path: string, signal?: AbortSignal): Promise<StepDetail> {
  return api<StepDetail>(
    "GET",
    `/api/console/executions/${encodeURIComponent(id)}/steps/${encodeURIComponent(path)}`,
    undefined,
    signal,
  );
}

/**
 * Workflow names by id, for the list's workflow column and filter: the summaries carry only the id.
 * One page of the largest size; a workflow past it (or deleted) shows by its id.
 */
export async function fetchWorkflowNames(signal: AbortSignal): Promise<Map<string, string>> {
  const list = await api<WorkflowList>("GET", `/api/console/workflows${query({ limit: 200 })}`, undefined, signal);
  return new Map(list.items.map((w) => [w.id, w.name]));
}

export function executionPath(id: string): string {
  return `/executions/${encodeURIComponent(id)}`;
}

/** The page comparing run `a` with run `b`, step by step. */
export function comparePath(a: string, b: string): string {
  return `/executions/compare${query({ a, b })}`;
}
