import type { Breakpoint, BreakpointInput } from "../../api/types";
import type { BreakpointKind } from "../../canvas/overlay";
import { nodeOfPath } from "./node-paths";

/** The breakpoints a node's gutter shows and sets: the ones naming one step. The other types stay in the panel. */

const TYPE_OF = { before: "before_step", after: "after_step", on_error: "on_error" } as const satisfies Record<
  BreakpointKind,
  Breakpoint["type"]
>;
const KINDS = Object.keys(TYPE_OF) as BreakpointKind[];

function kindOf(bp: Breakpoint): BreakpointKind | null {
  return KINDS.find((k) => TYPE_OF[k] === bp.type) ?? null;
}

/** The node a breakpoint is marked on, or null when it names no step (an `on_error` for every step, a conditional…). */
function markedNode(bp: Breakpoint): string | null {
  return "step" in bp && bp.step !== undefined && kindOf(bp) !== null ? nodeOfPath(bp.step) : null;
}

/**
 * The marks on each node: one per kind of its enabled breakpoints. A breakpoint on one item
 * (`loop[2].name`) marks the step's node as one on every item (`loop[*].name`) does.
 */
export function breakpointMarks(breakpoints: Breakpoint[]): Record<string, BreakpointKind[]> {
  const out: Record<string, BreakpointKind[]> = {};
  for (const bp of breakpoints) {
    const node = markedNode(bp);
    const kind = kindOf(bp);
    if (node === null || kind === null || !bp.enabled) continue;
    const marks = (out[node] ??= []);
    if (!marks.includes(kind)) marks.push(kind);
  }
  return out;
}

/**
 * The breakpoints after a click on a node's mark: a shown mark is removed (every enabled
 * breakpoint behind it), a disabled one is enabled again rather than doubled, else a new one
 * names the step at the path a breakpoint takes (`loop[*].name` inside a foreach).
 */
export function toggleMark(
  breakpoints: Breakpoint[],
  node: string,
  kind: BreakpointKind,
  stepPaths: string[],
): BreakpointInput[] {
  const mine = (bp: Breakpoint) => kindOf(bp) === kind && markedNode(bp) === node;
  if (breakpoints.some((bp) => mine(bp) && bp.enabled)) return breakpoints.filter((bp) => !(mine(bp) && bp.enabled));
  const disabled = breakpoints.findIndex(mine);
  if (disabled !== -1) return breakpoints.map((bp, i) => (i === disabled ? { ...bp, enabled: true } : bp));
  const step = stepPaths.find((p) => nodeOfPath(p) === node) ?? node;
  return [...breakpoints, { type: TYPE_OF[kind], step }];
}
