import type { CanvasGraph } from "@wf/shared/canvas";
import type { StepStatus, StepView } from "../../api/types";
import type { BreakpointKind, NodeOverlay } from "../../canvas/overlay";
import { enclosingForeach, nodeOfPath, pathsByNode } from "./node-paths";
import { combinedStatus, stepDuration } from "./step-tree";
import { hasUsage } from "./usage-format";

/** The item indexes in a path, outermost first: `item 1.0` names item 0 of `inner` in item 1 of `outer`. */
function itemLabel(path: string): string {
  return `item ${[...path.matchAll(/\[(\d+)\]/g)].map((m) => m[1]).join(".")}`;
}

const FINISHED_OK: ReadonlySet<StepStatus> = new Set(["COMPLETED", "SKIPPED"]);

/**
 * What a step inside a foreach says for all its items: the span of their times, the most attempts any took, the usage
 * of all.
 */
function combined(paths: string[], steps: Record<string, StepView>, now: number): NodeOverlay {
  const states = paths.map((p) => steps[p]!);
  const status = combinedStatus(new Set(states.map((s) => s.status))) ?? "PENDING";
  // The items still to come run it too: it is done only once the foreach holding it is.
  const containerRuns = paths.some((p) => {
    const container = enclosingForeach(p);
    return container !== null && steps[container]?.status === "RUNNING";
  });
  const used = states.filter((s) => hasUsage(s.usage));
  const starts = states.flatMap((s) => (s.startedAt === null ? [] : [s.startedAt]));
  const ends = states.flatMap((s) => {
    const end = s.completedAt ?? (s.status === "RUNNING" ? now : null);
    return end === null ? [] : [end];
  });
  const end = ends.length === states.length ? Math.max(...ends) : null;
  return {
    status: containerRuns && FINISHED_OK.has(status) ? "RUNNING" : status,
    durationMs: starts.length > 0 && end !== null ? end - Math.min(...starts) : null,
    attempts: Math.max(...states.map((s) => s.attempts)),
    tokens: used.length > 0 ? used.reduce((n, s) => n + s.usage!.totalTokens, 0) : null,
    costUsd: used.length > 0 ? used.reduce((n, s) => n + s.usage!.costUsd, 0) : null,
  };
}

function single(st: StepView, now: number): NodeOverlay {
  return {
    status: st.status,
    durationMs: stepDuration(st, now),
    attempts: st.attempts,
    tokens: hasUsage(st.usage) ? st.usage.totalTokens : null,
    costUsd: hasUsage(st.usage) ? st.usage.costUsd : null,
  };
}

/**
 * A foreach's items, each with the status of the steps it ran so far. An item whose steps so far
 * all completed runs on until its last step is recorded, unless its foreach ended (a failure
 * elsewhere stops the others).
 */
function foreachItems(
  instances: string[],
  lastStep: string | undefined,
  steps: Record<string, StepView>,
): NonNullable<NodeOverlay["items"]> {
  const recorded = Object.keys(steps);
  return instances.flatMap((foreach) => {
    const indexes = new Set<number>();
    for (const p of recorded) {
      const m = p.startsWith(`${foreach}[`) ? /^(\d+)\]\./.exec(p.slice(foreach.length + 1)) : null;
      if (m) indexes.add(Number(m[1]));
    }
    return [...indexes]
      .sort((a, b) => a - b)
      .map((i) => {
        const item = `${foreach}[${i}]`;
        const status =
          combinedStatus(new Set(recorded.filter((p) => p.startsWith(`${item}.`)).map((p) => steps[p]!.status))) ??
          "PENDING";
        const unfinished =
          steps[foreach]?.status === "RUNNING" && lastStep !== undefined && !(`${item}.${lastStep}` in steps);
        return {
          label: itemLabel(item),
          status: unfinished && FINISHED_OK.has(status) ? "RUNNING" : status,
          path: item,
        };
      });
  });
}

export interface RunOnCanvas {
  steps: Record<string, StepView>;
  /** The step path a debug run waits at. */
  pausedAt?: string | null;
  /** The step paths other branches wait at, behind the pause, for their turn. */
  waitingAt?: ReadonlySet<string>;
  /** The breakpoints marked on each node (canvas-breakpoints.ts). */
  marks?: Record<string, BreakpointKind[]>;
  /** What a node the run has no record of shows (unreachedStatus); pending when not given. */
  unreached?: StepStatus;
}

/**
 * What each node of the workflow's canvas shows of a run: status, duration, attempts, tokens and
 * cost of its step, a foreach's items, the debugger's pause and breakpoints. A step inside a
 * foreach runs once per item: its node sums them up and lists each. A node the run has not
 * reached is pending (cancelled, once the run was); one a rerun reused is "reused".
 * The view is live already (events patch it as they come), so this is too.
 */
export function runOverlay(graph: CanvasGraph, run: RunOnCanvas, now: number): Record<string, NodeOverlay> {
  const { steps } = run;
  const byNode = pathsByNode(steps);
  const paused = run.pausedAt ? nodeOfPath(run.pausedAt) : null;
  const waitingNodes = [...(run.waitingAt ?? [])].map(nodeOfPath);
  const out: Record<string, NodeOverlay> = {};
  for (const node of graph.nodes) {
    const paths = byNode.get(node.id) ?? [];
    const overlay: NodeOverlay =
      paths.length === 0
        ? { status: run.unreached ?? "PENDING" }
        : paths.length === 1 && enclosingForeach(paths[0]!) === null
          ? single(steps[paths[0]!]!, now)
          : combined(paths, steps, now);
    if (node.type === "foreach") {
      const body = graph.groups.find((g) => g.kind === "foreach" && g.owner === node.id)?.children ?? [];
      overlay.items = foreachItems(paths, body.at(-1), steps);
    } else if (paths.some((p) => enclosingForeach(p) !== null)) {
      overlay.items = paths.map((p) => ({ label: itemLabel(p), status: steps[p]!.status, path: p }));
    }
    // Taken over from the execution rerun, it did not run here: what it says is the other run's.
    if (paths.length > 0 && paths.every((p) => steps[p]!.reused)) {
      overlay.status = "REUSED";
      if (paths.some((p) => steps[p]!.edited)) overlay.edited = true;
    }
    if (node.id === paused) overlay.paused = true;
    const waiting = waitingNodes.filter((id) => id === node.id).length;
    if (waiting > 0) overlay.waiting = waiting;
    const marks = run.marks?.[node.id];
    if (marks) overlay.breakpoints = marks;
    out[node.id] = overlay;
  }
  return out;
}

/**
 * The node a live view keeps in sight: where a debug run is paused, else the step that started
 * running last (the innermost of a foreach's or a parallel's), else, while the run goes on, the
 * step that ended last (a quick step may start and end between two updates); null once it ended.
 */
export function followedNode(
  steps: Record<string, StepView>,
  pausedAt: string | null,
  running: boolean,
): string | null {
  if (pausedAt !== null) return nodeOfPath(pausedAt);
  if (!running) return null;
  const latest = (candidates: Array<[string, number | null]>) => {
    let best: { path: string; at: number } | null = null;
    for (const [path, at] of candidates) {
      if (at === null) continue;
      if (best === null || at > best.at || (at === best.at && path.length > best.path.length)) best = { path, at };
    }
    return best?.path ?? null;
  };
  const entries = Object.entries(steps);
  const path =
    latest(entries.map(([p, st]) => [p, st.status === "RUNNING" ? st.startedAt : null])) ??
    latest(entries.map(([p, st]) => [p, st.completedAt]));
  return path === null ? null : nodeOfPath(path);
}
