import { useEffect, useRef } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useEventStream, type ExecutionEvent, type StreamState } from "../../api/events";

/** What changes an approval record: a new request, a decision, an expiry, or its execution's cancel (which cancels it). */
const APPROVAL_EVENTS = new Set(["step_awaiting_approval", "step_approved", "step_rejected", "step_expired", "exec_cancelled"]);

function isApprovalEvent(event: ExecutionEvent): boolean {
  return APPROVAL_EVENTS.has(event.type);
}

/** Events that change neither an approval nor its execution's status: a step's output as it streams, its logs, its spend. */
const CHATTER = new Set(["step_log", "step_delta", "step_usage", "step_tool_call"]);

export function changesStatus(event: ExecutionEvent): boolean {
  return !CHATTER.has(event.type);
}

/**
 * Runs `action` once, `ms` after the first of a burst of calls: a run's events come in bursts and
 * one refetch answers them all, while a steady stream still refetches every `ms`.
 */
export function useCoalesced(action: () => void, ms = 250): () => void {
  const latest = useRef(action);
  latest.current = action;
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return useRef(() => {
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      latest.current();
    }, ms);
  }).current;
}

/** Keeps the approval lists current: follows all the user's executions' events and refetches on those that touch approvals. */
export function useLiveApprovals(): StreamState {
  const queries = useQueryClient();
  const refetch = useCoalesced(() => void queries.invalidateQueries({ queryKey: ["approvals"] }));
  return useEventStream("/api/console/events", (event) => {
    if (isApprovalEvent(event)) refetch();
  });
}

export const STREAM_LABEL: Record<StreamState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  ended: "Not live",
};
