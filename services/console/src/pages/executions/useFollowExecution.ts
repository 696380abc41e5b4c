import { useEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useEventStream, type ExecutionEvent, type StreamState } from "../../api/events";
import type { ExecutionView } from "../../api/types";
import { applyEvent } from "./apply-event";
import { keys } from "./queries";
import { useCoalesced } from "../../api/useCoalesced";

/** The events panel keeps the newest this many; a long run's streamed answer text would otherwise grow the page without end. */
const KEEP = 2_000;

const END_EVENTS = new Set(["exec_completed", "exec_failed", "exec_cancelled", "exec_interrupted"]);

export interface FollowedExecution {
  /** Oldest first, as they came. */
  events: ExecutionEvent[];
  stream: StreamState;
  /** `workflow` steps' child executions, by step path (from `step_child` events; the view does not carry them). */
  children: ReadonlyMap<string, string>;
}

/**
 * Follows one execution's event stream (its history, then live events until it ends): each event
 * patches the cached view at once (a step turns running, then completed, as it happens) and
 * schedules a coalesced refetch of the view and its open step details for everything an event
 * does not carry.
 */
export function useFollowExecution(id: string): FollowedExecution {
  const queries = useQueryClient();
  const [events, setEvents] = useState<ExecutionEvent[]>([]);
  // After its end event nothing more comes: the stream is closed rather than left to reconnect for a 204.
  const [ended, setEnded] = useState(false);
  const buffer = useRef<ExecutionEvent[]>([]);
  const frame = useRef<number | null>(null);
  const refetch = useCoalesced(() => void queries.invalidateQueries({ queryKey: keys.execution(id) }), 250, 1_500);

  useEffect(() => {
    buffer.current = [];
    setEvents([]);
    setEnded(false);
    return () => {
      if (frame.current !== null) cancelAnimationFrame(frame.current);
      frame.current = null;
    };
  }, [id]);

  const stream = useEventStream(ended ? null : `/api/console/executions/${encodeURIComponent(id)}/events`, (event) => {
    if (event.executionId !== id) return;
    // The history replays in a burst: rendered once a frame, not once an event.
    buffer.current.push(event);
    frame.current ??= requestAnimationFrame(() => {
      frame.current = null;
      const fresh = buffer.current;
      buffer.current = [];
      setEvents((all) => [...all, ...fresh].slice(-KEEP));
    });
    // An event older than the view fetched is already in it: replayed history must not turn a finished step back to running.
    const cached = queries.getQueryState<ExecutionView>(keys.execution(id));
    if (cached?.data && event.at >= cached.dataUpdatedAt) queries.setQueryData<ExecutionView>(keys.execution(id), (view) => view && applyEvent(view, event));
    if (event.type !== "step_delta") refetch();
    if (END_EVENTS.has(event.type)) setEnded(true);
  });

  const children = useMemo(() => {
    const out = new Map<string, string>();
    for (const e of events) if (e.type === "step_child" && e.step && typeof e.data.childExecutionId === "string") out.set(e.step, e.data.childExecutionId);
    return out;
  }, [events]);

  return { events, stream, children };
}
