import { useQueryClient } from "@tanstack/react-query";
import { useEventStream, type ExecutionEvent, type StreamState } from "../../api/events";
import { useCoalesced } from "../../api/useCoalesced";

/**
 * What changes an approval record: a new request, a decision, an expiry, or its execution's cancel (which cancels it).
 */
const APPROVAL_EVENTS = new Set([
  "step_awaiting_approval",
  "step_approved",
  "step_rejected",
  "step_expired",
  "exec_cancelled",
]);

function isApprovalEvent(event: ExecutionEvent): boolean {
  return APPROVAL_EVENTS.has(event.type);
}

/**
 * Events that change neither an approval nor its execution's status: a step's output as it streams, its logs, its
 * spend.
 */
const CHATTER = new Set(["step_log", "step_delta", "step_usage", "step_tool_call"]);

export function changesStatus(event: ExecutionEvent): boolean {
  return !CHATTER.has(event.type);
}

/** How long approvals wait after the first event of a burst before refetching: one refetch answers the burst. */
export const REFETCH_MS = 250;

/**
 * Keeps the approval lists current: follows all the user's executions' events and refetches on those that touch
 * approvals, and once the stream is live (a request made while it connected sent its event before the stream began).
 */
export function useLiveApprovals(): StreamState {
  const queries = useQueryClient();
  const refetch = useCoalesced(
    () => void queries.invalidateQueries({ queryKey: ["approvals"] }),
    REFETCH_MS,
    REFETCH_MS,
  );
  return useEventStream(
    "/api/console/events",
    (event) => {
      if (isApprovalEvent(event)) refetch();
    },
    refetch,
  );
}
