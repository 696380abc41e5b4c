import { useState } from "react";
import type { ExecutionEvent, StreamState } from "../../api/events";
import { Empty } from "../../ui/states";
import { LiveIndicator } from "../../ui/LiveIndicator";

const clock = new Intl.DateTimeFormat(undefined, {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  fractionalSecondDigits: 3,
});

const cut = (text: string, n = 160) => (text.length > n ? `${text.slice(0, n)}…` : text);

/** One line on what an event says, the fields a person looks for first. */
function summary(e: ExecutionEvent): string {
  const d = e.data;
  if (typeof d.error === "string") return cut(d.error);
  if (e.type === "step_log" && Array.isArray(d.lines)) return cut(d.lines.join(" ⏎ "));
  if (e.type === "step_delta" && typeof d.text === "string") return cut(d.text);
  if (e.type === "debug_paused") return `${String(d.type)} breakpoint, ${String(d.phase)} ${String(d.stepPath)}`;
  if (e.type === "debug_resumed") return `${String(d.command)} by ${String(d.by)}`;
  const rest = Object.keys(d).length === 0 ? "" : JSON.stringify(d);
  return cut(rest);
}

/** Rows drawn until a person asks for all: a long run's thousands would be redrawn with every event. */
const SHOWN = 200;

/** The execution's events as they stream, newest first. */
export function EventsPanel({ events, stream }: { events: ExecutionEvent[]; stream: StreamState }) {
  const [all, setAll] = useState(false);
  const newestFirst = (all ? [...events] : events.slice(-SHOWN)).reverse();
  return (
    <section className="card stack events-panel" aria-label="Events">
      <div className="row between">
        <h2>Events</h2>
        <div className="row">
          <span className="muted small">{events.length}</span>
          <LiveIndicator state={stream} endedLabel="All events received" />
        </div>
      </div>
      {events.length === 0 ? (
        <Empty title={stream === "ended" ? "No events are kept for this execution" : "Waiting for events"} />
      ) : (
        // Focusable, so that a keyboard scrolls it (its rows hold nothing else to focus).
        <div className="events-scroll" role="region" aria-label="Events, newest first" tabIndex={0}>
          <table className="events-table">
            <tbody>
              {newestFirst.map((e) => (
                <tr key={e.id} data-event-type={e.type}>
                  <td className="mono muted nowrap">{clock.format(e.at)}</td>
                  <td className="mono nowrap">{e.type}</td>
                  <td className="mono">{e.step ?? ""}</td>
                  <td className="mono small event-data">{summary(e)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {!all && events.length > SHOWN ? (
            <button type="button" className="small-button" onClick={() => setAll(true)}>
              Show all {events.length} events
            </button>
          ) : null}
        </div>
      )}
    </section>
  );
}
