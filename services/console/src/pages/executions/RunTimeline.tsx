import { useEffect, useMemo, useRef, useState } from "react";
import type { StepView } from "../../api/types";
import { EditedBadge } from "../../ui/EditedBadge";
import { formatDuration } from "../../ui/format";
import { axisTicks, buildTimeline, opensByDefault, type Bar, type TimelineRow } from "./timeline";
import type { TreeNode } from "./step-tree";
import "./timeline.css";

interface Props {
  tree: TreeNode[];
  steps: Record<string, StepView>;
  now: number;
  selected: string | null;
  onSelect(path: string): void;
  /** Whether the run goes on: the view follows the running step until a person scrolls it. */
  live: boolean;
}

const ZOOMS = [1, 2, 4, 8, 16, 32];

/**
 * The run's steps on one time axis: a bar per step (attempts counted, waits hatched, reused steps
 * marked), foreach items and parallel branches as lanes under their step, collapsible; zoomable.
 */
export function RunTimeline({ tree, steps, now, selected, onSelect, live }: Props) {
  const [toggled, setToggled] = useState<ReadonlySet<string>>(new Set());
  const [zoom, setZoom] = useState(0);
  const [follow, setFollow] = useState(true);
  const scroller = useRef<HTMLDivElement>(null);
  const timeline = useMemo(
    () => buildTimeline(tree, steps, now, (node: TreeNode) => opensByDefault(node) !== toggled.has(node.key)),
    [tree, steps, now, toggled],
  );
  const ticks = useMemo(() => axisTicks(timeline.span, 5 * ZOOMS[zoom]!), [timeline.span, zoom]);
  const toggle = (key: string) =>
    setToggled((current) => {
      const next = new Set(current);
      if (!next.delete(key)) next.add(key);
      return next;
    });

  // Keeps the running step's bar in view while the run goes on, until a person scrolls.
  useEffect(() => {
    const box = scroller.current;
    if (!live || !follow || !box || timeline.running === null) return;
    const bar = box.querySelector<HTMLElement>(`[data-path="${CSS.escape(timeline.running)}"]`);
    if (bar) scrollWithin(box, bar);
  }, [live, follow, timeline]);
  const stopFollowing = () => setFollow(false);

  return (
    <div className="timeline stack">
      <div className="row timeline-tools">
        <div role="group" aria-label="Zoom" className="row">
          <button type="button" onClick={() => setZoom((z) => Math.max(0, z - 1))} disabled={zoom === 0}>
            Zoom out
          </button>
          <button
            type="button"
            onClick={() => setZoom((z) => Math.min(ZOOMS.length - 1, z + 1))}
            disabled={zoom === ZOOMS.length - 1}
          >
            Zoom in
          </button>
          <button type="button" onClick={() => setZoom(0)} disabled={zoom === 0}>
            Fit
          </button>
        </div>
        <span className="muted">
          {formatDuration(timeline.span)} in all{ZOOMS[zoom] === 1 ? "" : `, ×${ZOOMS[zoom]}`}
        </span>
        {live && !follow ? (
          <button type="button" onClick={() => setFollow(true)}>
            Follow the running step
          </button>
        ) : null}
      </div>
      <div
        className="timeline-scroll"
        ref={scroller}
        tabIndex={0}
        aria-label="Timeline of the steps"
        onWheel={stopFollowing}
        onPointerDown={stopFollowing}
        onKeyDown={stopFollowing}
      >
        <div className="timeline-grid" style={{ ["--zoom" as string]: ZOOMS[zoom] }}>
          <div className="timeline-row timeline-axis" aria-hidden="true">
            <div className="timeline-label" />
            <div className="timeline-track">
              {ticks.map((t) => (
                <span key={t} className="timeline-tick" style={{ left: `${(t / timeline.span) * 100}%` }}>
                  {formatDuration(t)}
                </span>
              ))}
            </div>
          </div>
          <ol className="timeline-rows" aria-label="Steps on the timeline">
            {timeline.rows.map((row) => (
              <Row
                key={row.key}
                row={row}
                span={timeline.span}
                selected={selected}
                onSelect={onSelect}
                onToggle={toggle}
              />
            ))}
          </ol>
        </div>
      </div>
    </div>
  );
}

interface RowProps {
  row: TimelineRow;
  span: number;
  selected: string | null;
  onSelect(path: string): void;
  onToggle(key: string): void;
}

/** What opening a row shows, in words: "the 100 items of loop", "the 2 steps of item 7". */
function insideWords(row: TimelineRow): string {
  const what = row.kind === "lane" ? "steps" : row.type === "foreach" ? "items" : "branches";
  return `the ${row.inside} ${what} of ${row.label}`;
}

/** A bar's facts in words, for its title and the row's label. */
function barWords(bar: Bar): string {
  if (bar.reused) return `reused from the execution this one reruns${bar.edited ? ", as edited in the debugger" : ""}`;
  const attempts = bar.attempts > 1 ? `, ${bar.attempts} attempts` : "";
  return `${bar.status.toLowerCase().replaceAll("_", " ")}, ${formatDuration(bar.end - bar.start)}${attempts}`;
}

/**
 * One row: its label (a step's opens the step, a keyboard's way to every step) and its track.
 * Bars are the pointer's shortcut to the same steps: too small to be keyboard targets of their own.
 */
function Row({ row, span, selected, onSelect, onToggle }: RowProps) {
  const own = row.kind === "step" ? row.bars[0] : undefined;
  return (
    <li className={`timeline-row timeline-${row.kind}`} data-key={row.key}>
      <div className="timeline-label" style={{ paddingLeft: 8 + row.depth * 16 }}>
        {row.inside > 0 ? (
          <button
            type="button"
            className="ghost expander"
            aria-expanded={row.open}
            aria-label={`${row.open ? "Collapse" : "Expand"} ${insideWords(row)}`}
            onClick={() => onToggle(row.key)}
          >
            {row.open ? "▾" : "▸"}
          </button>
        ) : (
          <span className="expander-space" aria-hidden="true" />
        )}
        {row.path !== null ? (
          <button
            type="button"
            className="link-button"
            title={row.path}
            aria-label={`${row.label}: ${own ? barWords(own) : (row.status ?? "not started").toLowerCase().replaceAll("_", " ")}`}
            aria-current={selected === row.path ? "true" : undefined}
            onClick={() => onSelect(row.path!)}
          >
            {row.label}
          </button>
        ) : (
          <span className="muted">{row.label}</span>
        )}
        {own?.edited ? <EditedBadge /> : null}
      </div>
      <div className="timeline-track" aria-hidden="true">
        {row.bars.map((bar) => (
          <div
            key={bar.path}
            className={[
              "timeline-bar",
              `status-${bar.status.toLowerCase()}`,
              bar.waiting ? "waiting" : "",
              bar.reused ? "reused" : "",
              selected === bar.path ? "selected" : "",
            ]
              .filter(Boolean)
              .join(" ")}
            data-path={bar.path}
            style={{ left: `${(bar.start / span) * 100}%`, width: `${((bar.end - bar.start) / span) * 100}%` }}
            title={`${bar.path}: ${barWords(bar)}`}
            onClick={() => onSelect(bar.path)}
          >
            <span className="timeline-bar-text">
              {bar.reused ? "reused" : row.kind === "lane" ? bar.name : formatDuration(bar.end - bar.start)}
              {bar.attempts > 1 ? ` ×${bar.attempts}` : ""}
            </span>
          </div>
        ))}
        {row.bars.length === 0 && row.kind === "step" ? (
          <span className="timeline-unstarted muted">
            {(row.status ?? "not started").toLowerCase().replaceAll("_", " ")}
          </span>
        ) : null}
      </div>
    </li>
  );
}

/** Scrolls `box` (not the page) so that `el` is in view, vertically and horizontally. */
function scrollWithin(box: HTMLElement, el: HTMLElement): void {
  const b = box.getBoundingClientRect();
  const e = el.getBoundingClientRect();
  if (e.top < b.top + 24 || e.bottom > b.bottom) box.scrollTop += e.top - b.top - b.height / 2;
  if (e.right > b.right) box.scrollLeft += e.right - b.right + 24;
  else if (e.left < b.left) box.scrollLeft += e.left - b.left - 24;
}
