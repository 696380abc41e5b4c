/**
 * A step where another branch of a paused debug run waits its turn (`count` of its items, on a canvas node): drawn
 * apart from the paused step's badge, in words as well as in its dashed border. `short` for a canvas node, whose
 * name says the rest to a screen reader and which has no room for more beside its status and duration.
 */
export function WaitingBadge({ count = 1, short = false }: { count?: number; short?: boolean }) {
  const words = short ? "waiting" : count === 1 ? "waiting its turn" : "waiting their turn";
  return (
    <span className="badge status-waiting" title="It pauses, or goes on, in its turn once the pause is answered">
      {count === 1 ? words : `${count} ${words}`}
    </span>
  );
}
