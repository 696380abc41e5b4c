import { useEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useEventStream, type ExecutionEvent, type StreamState } from "../../api/events";
import type { ExecutionView } from "../../api/types";
import { applyNewer, eventNumber } from "./apply-event";
import { keys } from "./queries";
import { useCoalesced } from "../../api/useCoalesced";

/**
 * The events panel keeps the newest this many; a long run's streamed answer text would otherwise grow the page without
 * end.
 */
const KEEP = 2_000;

/** The least time between two renders of streamed events. */
const FLUSH_MS = 150;

const END_EVENTS = new Set(["exec_completed", "exec_failed", "exec_cancelled", "exec_interrupted"]);

export interface FollowedExecution {
  /** Oldest first, as they came. */
  events: ExecutionEvent[];
  stream: StreamState;
  /** `workflow` steps' child executions, by step path (from `step_child` events; the view does not carry them). */
  children: ReadonlyMap<string, string>;
}

/**
 * Follows one execution's event stream (its history, then live events until it ends): the events
 * patch the cached view within FLUSH_MS (a step turns running, then completed, as it happens) and
 * schedule a coalesced refetch of the view and its open step details for everything an event
 * does not carry.
 */
export function useFollowExecution(id: string): FollowedExecution {
  const queries = useQueryClient();
  const [events, setEvents] = useState<ExecutionEvent[]>([]);
  // After its end event nothing more comes: the stream is closed rather than left to reconnect for a 204.
  const [ended, setEnded] = useState(false);
  const buffer = useRef<ExecutionEvent[]>([]);
  /** The numbered events received, oldest first: the view is what was fetched, and those of them after it. */
  const received = useRef<ExecutionEvent[]>([]);
  const timer = useRef<number | null>(null);
  const lastFlush = useRef(-Infinity);
  const refetch = useCoalesced(() => void queries.invalidateQueries({ queryKey: keys.execution(id) }), 250, 1_500);

  useEffect(() => {
    buffer.current = [];
    received.current = [];
    setEvents([]);
    setEnded(false);
    return () => {
      if (timer.current !== null) window.clearTimeout(timer.current);
      timer.current = null;
    };
  }, [id]);

  // Events are applied together, at most every FLUSH_MS: a run of hundreds of steps sends tens a
  // second, and each render of its page (the canvas, the list, the events) costs milliseconds.
  const flush = (): void => {
    timer.current = null;
    lastFlush.current = performance.now();
    const fresh = buffer.current;
    buffer.current = [];
    setEvents((all) => [...all, ...fresh].slice(-KEEP));
    received.current = [...received.current, ...fresh.filter((e) => eventNumber(e) !== null)].slice(-KEEP);
    catchUp();
  };

  // Only what the cached view does not reflect yet: replayed history must not turn a finished step back to running.
  const catchUp = (): void => {
    const last = received.current.at(-1);
    const view = queries.getQueryData<ExecutionView>(keys.execution(id));
    if (last === undefined || view === undefined || eventNumber(last)! <= view.eventSeq) return;
    queries.setQueryData<ExecutionView>(keys.execution(id), (v) => v && received.current.reduce(applyNewer, v));
  };

  // A view fetched while events were on their way (it may have been read before some of them) takes them again.
  useEffect(() => {
    const hash = JSON.stringify(keys.execution(id));
    return queries.getQueryCache().subscribe((e) => {
      if (e.type === "updated" && e.action.type === "success" && e.query.queryHash === hash) queueMicrotask(catchUp);
    });
  }, [id, queries]);

  const stream = useEventStream(ended ? null : `/api/console/executions/${encodeURIComponent(id)}/events`, (event) => {
    if (event.executionId !== id) return;
    buffer.current.push(event);
    timer.current ??= window.setTimeout(flush, Math.max(0, lastFlush.current + FLUSH_MS - performance.now()));
    if (event.type !== "step_delta") refetch();
    if (END_EVENTS.has(event.type)) setEnded(true);
  });

  const children = useMemo(() => {
    const out = new Map<string, string>();
    for (const e of events)
      if (e.type === "step_child" && e.step && typeof e.data.childExecutionId === "string")
        out.set(e.step, e.data.childExecutionId);
    return out;
  }, [events]);

  return { events, stream, children };
}
