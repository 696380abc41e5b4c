import type { StepStatus, StepView } from "../../api/types";
import { groupStatus, type TreeNode } from "./step-tree";

/** One step's time on the timeline, in milliseconds from the axis's start. */
export interface Bar {
  path: string;
  name: string;
  status: StepStatus;
  start: number;
  end: number;
  attempts: number;
  /** Taken from the execution a rerun reruns: drawn as a mark at the start, not as time spent here. */
  reused: boolean;
  /** Reused as a debugger's `set` left it in the execution rerun: the step did not give it. */
  edited: boolean;
  /** Time waited, not worked: an approval awaited, or a `wait` step. */
  waiting: boolean;
}

/**
 * A step's row (its own bar), or a lane: a foreach item's or parallel branch's steps side by side, openable into their
 * rows.
 */
export interface TimelineRow {
  key: string;
  kind: "step" | "lane";
  label: string;
  depth: number;
  /** The step a step row is for; null for a lane. */
  path: string | null;
  type: string;
  status: StepStatus | null;
  bars: Bar[];
  /** What opening the row shows (a step's lanes, a lane's steps): how many, and whether it is open. */
  inside: number;
  open: boolean;
}

export interface Timeline {
  rows: TimelineRow[];
  /** The axis's length in milliseconds (at least 1). */
  span: number;
  /** The path of the step running last started, for following the run. */
  running: string | null;
}

/** Foreach steps with more items than this start with their lanes collapsed. */
export const OPEN_LANES_UP_TO = 20;

/** Whether a row starts open: a parallel's lanes always, a foreach's when it has few items; a lane's steps never. */
export function opensByDefault(node: TreeNode): boolean {
  return (
    node.kind === "step" &&
    node.children.length > 0 &&
    (node.type !== "foreach" || node.children.length <= OPEN_LANES_UP_TO)
  );
}

const LIVE: ReadonlySet<StepStatus> = new Set(["RUNNING", "AWAITING_APPROVAL"]);

/**
 * The run as rows of bars on one time axis: each step its row; under an open foreach or parallel
 * step one lane per item or branch, its steps' bars side by side, and under an open lane its
 * steps' rows. Steps still running end at `now`; reused steps keep no time of this run.
 */
export function buildTimeline(
  tree: TreeNode[],
  steps: Record<string, StepView>,
  now: number,
  isOpen: (node: TreeNode) => boolean,
): Timeline {
  let origin = Infinity;
  let last = -Infinity;
  let running: { path: string; start: number } | null = null;
  for (const [path, st] of Object.entries(steps)) {
    if (st.reused || st.startedAt === null) continue;
    origin = Math.min(origin, st.startedAt);
    last = Math.max(last, endOf(st, now));
    if (st.status === "RUNNING" && (running === null || st.startedAt >= running.start))
      running = { path, start: st.startedAt };
  }
  if (origin === Infinity) origin = last = now;

  const barOf = (path: string, name: string, type: string): Bar | null => {
    const st = steps[path];
    if (!st || (st.startedAt === null && !st.reused)) return null;
    if (st.reused)
      return {
        path,
        name,
        status: st.status,
        start: 0,
        end: 0,
        attempts: st.attempts,
        reused: true,
        edited: st.edited === true,
        waiting: false,
      };
    const start = st.startedAt! - origin;
    return {
      path,
      name,
      status: st.status,
      start,
      end: Math.max(start, endOf(st, now) - origin),
      attempts: st.attempts,
      reused: false,
      edited: false,
      waiting: st.status === "AWAITING_APPROVAL" || (type === "wait" && st.status === "RUNNING"),
    };
  };
  /** A lane's bars: its steps', a container inside it drawn as one bar. */
  const laneBars = (children: TreeNode[]): Bar[] =>
    children.flatMap((child) => {
      if (child.kind !== "step") return laneBars(child.children);
      const bar = barOf(child.path, child.name, child.type);
      return bar ? [bar] : [];
    });

  const rows: TimelineRow[] = [];
  const emit = (node: TreeNode, depth: number) => {
    const open = node.children.length > 0 && isOpen(node);
    if (node.kind === "step") {
      const bar = barOf(node.path, node.name, node.type);
      const status = steps[node.path]?.status ?? null;
      rows.push({
        key: node.key,
        kind: "step",
        label: node.name,
        depth,
        path: node.path,
        type: node.type,
        status,
        bars: bar ? [bar] : [],
        inside: node.children.length,
        open,
      });
    } else {
      const status = groupStatus(node, steps);
      rows.push({
        key: node.key,
        kind: "lane",
        label: node.label,
        depth,
        path: null,
        type: node.kind,
        status,
        bars: laneBars(node.children),
        inside: node.children.length,
        open,
      });
    }
    if (open) for (const child of node.children) emit(child, depth + 1);
  };
  for (const node of tree) emit(node, 0);
  return { rows, span: Math.max(1, last - origin), running: running?.path ?? null };
}

/** Where a step's time ends: its completion, `now` while it runs or waits, else where it started. */
function endOf(st: StepView, now: number): number {
  if (st.completedAt !== null) return st.completedAt;
  return LIVE.has(st.status) ? now : (st.startedAt ?? now);
}

/** Evenly spaced marks along an axis of `span` ms: about `count` of them, at round durations. */
export function axisTicks(span: number, count: number): number[] {
  const raw = span / Math.max(1, count);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = 0; t <= span; t += step) ticks.push(t);
  return ticks;
}
