import { useQueryClient, type InfiniteData } from "@tanstack/react-query";
import { useEventStream, type ExecutionEvent, type StreamState } from "../../api/events";
import type { ExecutionList, ExecutionStatus } from "../../api/types";
import { hasEnded } from "./execution-status";
import { STATUSES } from "./list-filters";
import { keys } from "./queries";
import { useCoalesced } from "../../api/useCoalesced";

/**
 * Events after which a summary reads differently (status, progress, usage); logs and deltas change nothing in a row.
 */
const CHANGES_A_ROW = new Set([
  "exec_started",
  "exec_completed",
  "exec_failed",
  "exec_cancelled",
  "exec_interrupted",
  "exec_parked",
  "exec_resumed",
  "step_completed",
  "step_failed",
  "step_skipped",
  "step_reused",
  "step_usage",
  "step_awaiting_approval",
  "step_approved",
  "step_rejected",
  "step_expired",
]);

/**
 * Keeps the executions list live from the owner's event stream: a row whose execution ends shows
 * its new status at once, and the pages are fetched again (coalesced, so a burst of events is one
 * refetch) for everything else, new executions included, which come first; and once the stream
 * is live, for what happened while it connected.
 */
export function useLiveExecutionList(): StreamState {
  const queries = useQueryClient();
  const refetch = useCoalesced(
    () => {
      // A refetch cancels the page being fetched: a "Load more" clicked meanwhile would be lost. It comes after.
      if (queries.isFetching({ queryKey: keys.lists }) > 0) refetch();
      else void queries.invalidateQueries({ queryKey: keys.lists });
    },
    400,
    2_000,
  );

  return useEventStream(
    "/api/console/events",
    (event: ExecutionEvent) => {
      if (!CHANGES_A_ROW.has(event.type)) return;
      const status = event.data.status;
      if (
        event.type.startsWith("exec_") &&
        typeof status === "string" &&
        (STATUSES as readonly string[]).includes(status)
      ) {
        queries.setQueriesData<InfiniteData<ExecutionList>>({ queryKey: keys.lists }, (data) =>
          patchStatus(data, event, status as ExecutionStatus),
        );
      }
      refetch();
    },
    refetch,
  );
}

function patchStatus(
  data: InfiniteData<ExecutionList> | undefined,
  event: ExecutionEvent,
  status: ExecutionStatus,
): InfiniteData<ExecutionList> | undefined {
  if (!data) return data;
  let changed = false;
  const pages = data.pages.map((page) => {
    if (!page.items.some((e) => e.id === event.executionId)) return page;
    changed = true;
    return {
      ...page,
      items: page.items.map((e) =>
        e.id !== event.executionId
          ? e
          : { ...e, status, ...(hasEnded(status) && e.completeAt === null ? { completeAt: event.at } : {}) },
      ),
    };
  });
  return changed ? { ...data, pages } : data;
}
