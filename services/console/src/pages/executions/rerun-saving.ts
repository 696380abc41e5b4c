import type { ExecutionView, RerunResponse, Usage } from "../../api/types";

export interface RerunSaving {
  of: string;
  fromStep: string | null;
  /** Top-level steps taken from the execution rerun, in order. */
  reused: string[];
  /** The reused steps that stand on a debugger's edit in the execution rerun. */
  edited: string[];
  saved: Usage;
}

/**
 * What a rerun took over instead of running again, and the tokens and cost that saved. Until an
 * executor has built the rerun (PENDING) its record says nothing of it: the start's answer, handed
 * over by the rerun dialog, says what was planned.
 */
export function rerunSaving(
  view: Pick<ExecutionView, "id" | "status" | "rerunOf" | "steps" | "savedUsage">,
  topLevel: string[],
  started: RerunResponse | null,
): RerunSaving | null {
  if (view.rerunOf === null) return null;
  const planned = started?.executionId === view.id ? started : null;
  if (view.status === "PENDING")
    return (
      planned && {
        of: view.rerunOf,
        fromStep: planned.fromStep,
        reused: planned.reusedSteps,
        edited: planned.editedSteps,
        saved: planned.savedUsage,
      }
    );
  const reused = topLevel.filter((p) => view.steps[p]?.reused);
  const fromStep =
    planned?.fromStep ?? (reused.length > 0 ? (topLevel.find((p) => !view.steps[p]?.reused) ?? null) : null);
  const edited = reused.filter((p) => view.steps[p]?.edited);
  return { of: view.rerunOf, fromStep, reused, edited, saved: view.savedUsage };
}
