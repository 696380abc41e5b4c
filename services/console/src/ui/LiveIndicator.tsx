import type { StreamState } from "../api/events";

const WORDS: Record<StreamState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  ended: "Ended",
};

/** Whether the page is following the service's events: a person should know when what they see may be behind. */
export function LiveIndicator({
  state,
  endedLabel = WORDS.ended,
  title = "Updates as the service sends events",
}: {
  state: StreamState;
  endedLabel?: string;
  title?: string;
}) {
  return (
    <span className={`live-indicator live-${state}`} role="status" title={title}>
      <span className="dot" aria-hidden="true" /> {state === "ended" ? endedLabel : WORDS[state]}
    </span>
  );
}
