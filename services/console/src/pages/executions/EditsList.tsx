import type { DebugEdit } from "../../api/types";
import { formatTime, prettyJson } from "../../ui/format";

/**
 * What `set` (or `skip` with an output) changed at the pauses, oldest first: the record never loses what the run had
 * before.
 */
export function EditsList({ edits }: { edits: DebugEdit[] }) {
  return (
    <section className="card stack" aria-label="Edits">
      <h2>Edits</h2>
      {edits.length === 0 ? (
        <p className="muted">Nothing edited at a pause yet.</p>
      ) : (
        <ol className="edits">
          {edits.map((e, i) => (
            <li key={`${e.pauseId}-${i}`}>
              <div className="row">
                <strong>{e.field}</strong> at <code>{e.stepPath}</code>
                <span className="muted small" title={e.by}>
                  {formatTime(e.at)}
                </span>
              </div>
              <div className="grid-2">
                <pre aria-label="Before">{prettyJson(e.before)}</pre>
                <pre aria-label="After">{prettyJson(e.after)}</pre>
              </div>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
