import { useContext, useState } from "react";
import { EditedBadge } from "../ui/EditedBadge";
import { WaitingBadge } from "../ui/WaitingBadge";
import { formatCost, formatDuration, formatNumber } from "../ui/format";
import { CanvasActionsContext } from "./actions";
import type { NodeOverlay } from "./overlay";

const statusWord = (status: string): string => status.toLowerCase().replaceAll("_", " ");

/**
 * A status badge as the rest of the console draws it; REUSED (a rerun's step taken over from the run it reruns) is the
 * console's own.
 */
function statusClass(status: string): string {
  const word = status.toLowerCase();
  return word === "reused" ? "badge reused" : `badge status-${word}`;
}

/** A step's run on its node: status, then duration, attempts, tokens and cost, as far as they are known. */
export function RunFacts({ overlay }: { overlay: NodeOverlay }) {
  const facts = [
    overlay.durationMs === undefined || overlay.durationMs === null ? null : formatDuration(overlay.durationMs),
    overlay.attempts !== undefined && overlay.attempts > 1 ? `${overlay.attempts} attempts` : null,
    overlay.tokens === undefined || overlay.tokens === null ? null : `${formatNumber(overlay.tokens)} tok`,
    overlay.costUsd === undefined || overlay.costUsd === null ? null : formatCost(overlay.costUsd),
  ].filter((fact) => fact !== null);
  return (
    <div className="wf-node-run">
      {overlay.status ? <span className={statusClass(overlay.status)}>{statusWord(overlay.status)}</span> : null}
      {overlay.edited ? <EditedBadge /> : null}
      {overlay.paused ? <span className="badge status-paused">paused here</span> : null}
      {overlay.waiting ? <WaitingBadge count={overlay.waiting} short /> : null}
      <span className="wf-node-facts">{facts.join(" · ")}</span>
      {overlay.items && overlay.items.length > 0 ? <ItemList items={overlay.items} /> : null}
    </div>
  );
}

/** A foreach's items, folded into a button; each item selects its run (its path). */
function ItemList({ items }: { items: NonNullable<NodeOverlay["items"]> }) {
  const [open, setOpen] = useState(false);
  const { selected, select } = useContext(CanvasActionsContext);
  return (
    <div className="wf-items nodrag nowheel">
      <button
        type="button"
        className="wf-items-toggle"
        aria-expanded={open}
        onClick={(event) => {
          event.stopPropagation();
          setOpen(!open);
        }}
      >
        {items.length === 1 ? "1 item" : `${items.length} items`} {open ? "▴" : "▾"}
      </button>
      {open ? (
        <ul className="wf-items-list">
          {items.map((item) => (
            <li key={item.path}>
              <button
                type="button"
                className={item.path === selected ? "is-selected" : undefined}
                onClick={(event) => {
                  event.stopPropagation();
                  select(item.path);
                }}
              >
                <span>{item.label}</span>
                <span className={statusClass(item.status)}>{statusWord(item.status)}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
