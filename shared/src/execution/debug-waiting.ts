import type { DebugWaitingPoint } from "../api/console-debug";
import { stepLineage, stepNameOf, WorkflowSchema, type Step } from "../workflow/index";
import { BREAKPOINT_LABELS } from "./breakpoint-labels";
import { mayPauseAt, type DebugState, type PausePhase } from "./debug";
import { TERMINAL_STATUSES, type ExecutionSnapshot } from "./snapshot";

/** A failure's error in a held point's reason: enough to recognise it, the step's detail has the rest. */
const ERROR_CHARS = 160;

/** What waits behind a pause, each in the order the branches came to it. */
export interface WaitingPoints {
  waiting: DebugWaitingPoint[];
  held: DebugWaitingPoint[];
}

/**
 * What a paused debug run's other branches wait with (docs/debugger.md#durability): the points where a breakpoint may
 * pause them in turn, and their failures held. Only while a pause stands: a point is also marked with its step's
 * completion before it is judged, and one the run has no pause for is judged at once.
 */
export function waitingPoints(s: Pick<ExecutionSnapshot, "status" | "definition" | "debug">): WaitingPoints {
  const d = s.debug;
  const pause = d?.pause ?? null;
  if (!d || !pause || TERMINAL_STATUSES.has(s.status)) return { waiting: [], held: [] };
  const branchOf = branches(s.definition);
  const shown = (stepPath: string, phase: PausePhase, occurrence: number) => ({
    stepPath,
    phase,
    occurrence,
    items: [...stepPath.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])),
    branch: branchOf(stepPath),
  });
  const waiting = d.waiting.flatMap((w) => {
    const hits = mayPauseAt(d.breakpoints, w);
    // None: its breakpoints were removed since (it goes on in its turn), or it was marked with its step's completion
    // for a watch its step did not change.
    return hits.length === 0
      ? []
      : [{ ...shown(w.stepPath, w.phase, w.occurrence), breakpoints: hits, reason: hitWords(hits) }];
  });
  const held = d.held.map((h) => {
    const hits = mayPauseAt(d.breakpoints, { stepPath: h.stepPath, phase: "error", hits: h.hits });
    return { ...shown(h.stepPath, "error", h.occurrence), breakpoints: hits, reason: failureWords(h) };
  });
  return { waiting, held };
}

function hitWords(hits: DebugWaitingPoint["breakpoints"]): string {
  return hits
    .map((h) =>
      h.type === "watch"
        ? `Watch ${h.id}: its step changed the value`
        : `${BREAKPOINT_LABELS[h.type]} breakpoint ${h.id}`,
    )
    .join("; ");
}

function failureWords(h: DebugState["held"][number]): string {
  const error = h.error.replace(/\s+/g, " ").trim();
  const cut = error.length > ERROR_CHARS ? `${error.slice(0, ERROR_CHARS - 1)}…` : error;
  return `Attempt ${h.occurrence} failed: ${cut}`;
}

/** The branch of the innermost parallel holding a step path's step, by the workflow the run started with. */
function branches(definition: unknown): (path: string) => string | null {
  let steps: readonly Step[] | undefined;
  return (path) => {
    steps ??= WorkflowSchema.safeParse(definition).data?.steps ?? [];
    const lineage = stepLineage(steps, stepNameOf(path));
    if (!lineage) return null;
    for (let k = lineage.ancestors.length - 1; k >= 0; k--) {
      const parent = lineage.ancestors[k]!;
      if (parent.type !== "parallel") continue;
      const list = lineage.lists[k + 1];
      return Object.entries(parent.branches).find(([, branch]) => branch === list)?.[0] ?? null;
    }
    return null;
  };
}
