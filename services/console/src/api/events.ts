import { useEffect, useRef, useState } from "react";
import type { ExecutionEvent } from "@wf/shared/execution";

/** An execution event as the service publishes it (the `data:` of an SSE frame): the service's own schema's type. */
export type { ExecutionEvent } from "@wf/shared/execution";

/** The event types the service publishes (docs/api.md, Events). */
export const EVENT_TYPES = [
  "exec_started",
  "exec_completed",
  "exec_failed",
  "exec_cancelled",
  "exec_interrupted",
  "exec_parked",
  "exec_resumed",
  "step_started",
  "step_completed",
  "step_failed",
  "step_skipped",
  "step_cancelled",
  "step_retrying",
  "step_reused",
  "step_log",
  "step_usage",
  "step_delta",
  "step_artifacts",
  "step_child",
  "step_waiting",
  "step_awaiting_approval",
  "step_approved",
  "step_rejected",
  "step_expired",
  "step_egress_refused",
  "step_tool_call",
  "foreach_item",
  "debug_paused",
  "debug_resumed",
  "debug_edited",
  "debug_breakpoints",
] as const;

export type StreamState = "connecting" | "live" | "ended" | "reconnecting";

/**
 * Follows a console event stream (Server-Sent Events) while mounted: every event goes to
 * `onEvent`. EventSource reconnects by itself and sends Last-Event-ID, so nothing is missed or
 * repeated across a drop; a 204 (an ended execution with nothing more) closes it for good.
 *
 * `onOpen` runs each time the stream is live. An owner's stream starts at the next event, so what
 * changed between a page's fetch and that moment reaches the page only if it fetches again then.
 */
export function useEventStream(
  url: string | null,
  onEvent: (event: ExecutionEvent) => void,
  onOpen?: () => void,
): StreamState {
  const [state, setState] = useState<StreamState>("connecting");
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const opened = useRef(onOpen);
  opened.current = onOpen;

  useEffect(() => {
    if (url === null) {
      setState("ended");
      return;
    }
    setState("connecting");
    const source = new EventSource(url, { withCredentials: true });
    const receive = (message: MessageEvent<string>) => {
      try {
        handler.current(JSON.parse(message.data) as ExecutionEvent);
      } catch {
        // A frame that is not an event (none are sent) is ignored rather than breaking the page.
      }
    };
    // EventSource hands a frame named `event: <type>` only to that type's listeners.
    for (const type of EVENT_TYPES) source.addEventListener(type, receive);
    source.onmessage = receive;
    source.onopen = () => {
      setState("live");
      opened.current?.();
    };
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? "ended" : "reconnecting");
    return () => source.close();
  }, [url]);

  return state;
}
