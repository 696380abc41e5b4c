import type { WaitingPoint } from "../../api/types";
import { waitingPlace, waitingSentence } from "./waiting-turns";

/**
 * The other branches' points waiting behind the pause, in the order they came: what answering this pause lets pause
 * next. Each selects its step, on the canvas and in the step's detail.
 */
export function WaitingTurns({
  points,
  selected,
  onSelect,
}: {
  points: WaitingPoint[];
  selected: string | null;
  onSelect(path: string): void;
}) {
  const waiting = points.filter((w) => w.phase !== "error");
  const held = points.filter((w) => w.phase === "error");
  const list = (items: WaitingPoint[]) => (
    <ol className="waiting-turns">
      {items.map((w) => (
        <li key={`${w.stepPath} ${w.phase} ${w.occurrence}`}>
          <div className="row">
            <button
              type="button"
              className="link-button mono"
              aria-current={selected === w.stepPath ? "true" : undefined}
              onClick={() => onSelect(w.stepPath)}
            >
              {w.stepPath}
            </button>
            {waitingPlace(w) ? <span className="muted small">{waitingPlace(w)}</span> : null}
          </div>
          <p>{waitingSentence(w)}</p>
        </li>
      ))}
    </ol>
  );
  return (
    <section className="card stack waiting-card" aria-label="Waiting their turn">
      <h2>Waiting their turn ({points.length})</h2>
      <p className="muted small">
        Other branches came to these points while this pause stands. Once it is answered, each is judged in turn: it
        pauses there, or goes on.
      </p>
      {waiting.length > 0 ? list(waiting) : null}
      {held.length > 0 ? (
        <>
          <h3>Failed meanwhile</h3>
          {list(held)}
        </>
      ) : null}
    </section>
  );
}
