import type { StepStatus, StepView } from "../../api/types";

/**
 * The node a recorded step path is drawn as: its last step name (`each[2].inner` is `inner`, the
 * item path `each[2]` is `each`). Step names are unique in a file and hold no dots or brackets.
 */
export function nodeOfPath(path: string): string {
  const last = path.slice(path.lastIndexOf(".") + 1);
  const bracket = last.indexOf("[");
  return bracket === -1 ? last : last.slice(0, bracket);
}

/**
 * The foreach a step path runs in (`outer[1].inner[0].x` runs in `outer[1].inner`), or null at the top level or in a
 * parallel.
 */
export function enclosingForeach(path: string): string | null {
  return /^(.*)\[\d+\]\.[^.]+$/.exec(path)?.[1] ?? null;
}

/** The recorded paths of each node, foreach items in order (`each[2]` before `each[10]`). */
export function pathsByNode(steps: Record<string, StepView>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const paths = Object.keys(steps).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  for (const path of paths) {
    const node = nodeOfPath(path);
    out.set(node, [...(out.get(node) ?? []), path]);
  }
  return out;
}

const FIRST: StepStatus[] = ["FAILED", "RUNNING", "AWAITING_APPROVAL"];

/**
 * The step a click on the canvas opens. A node: of a step that ran once per foreach item, the item
 * paused at, else the first that failed, else one still running, else the last; one the run has
 * not reached at its name (its detail says it has not started). An item of a node's list: that
 * step path, or for a foreach's item (`each[2]`) its first step.
 */
export function stepToOpen(clicked: string, steps: Record<string, StepView>, pausedAt: string | null): string {
  if (clicked in steps) return clicked;
  if (clicked.endsWith("]")) {
    const inItem = Object.keys(steps).filter((p) => p.startsWith(`${clicked}.`));
    // An item's steps run in order: the one that started first is its first.
    return inItem.sort((a, b) => (steps[a]!.startedAt ?? Infinity) - (steps[b]!.startedAt ?? Infinity))[0] ?? clicked;
  }
  const paths = pathsByNode(steps).get(clicked) ?? [];
  if (pausedAt !== null && paths.includes(pausedAt)) return pausedAt;
  for (const status of FIRST) {
    const found = paths.find((p) => steps[p]?.status === status);
    if (found !== undefined) return found;
  }
  return paths.at(-1) ?? clicked;
}
