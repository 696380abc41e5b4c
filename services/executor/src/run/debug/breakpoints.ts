import {
  BREAKPOINT_TYPE_AT,
  stepMatches,
  type Breakpoint,
  type DebugState,
  type PausePhase,
  type Usage,
} from "@wf/shared/execution";
import type { ExpressionContext } from "@wf/shared/expressions";
import { walkSteps, type Workflow } from "@wf/shared/workflow";

/**
 * A place in the run where breakpoints are evaluated: a phase of one step (or of one foreach
 * item), and which time that phase comes there (`occurrence`: the attempt, the item's index,
 * the tool call's or LLM call's number within the attempt; 0 where a phase comes once).
 */
export interface Point {
  phase: PausePhase;
  path: string;
  occurrence: number;
  toolCall?: { server: string; tool: string };
  /** llm_call: the execution's totals so far, and what the call about to be made is expected to add. */
  usage?: { totals: Usage; estimate: Usage };
  /** The hits counted as the branch came here while another branch was paused (by breakpoint id): not counted again. */
  counted?: DebugState["waiting"][number]["hits"];
  /** after: the watches the step changed while another branch was paused, judged in the point's turn. */
  watches?: DebugState["waiting"][number]["watches"];
  /**
   * after, with watches: what expressions saw as the step completed, for its watches to be judged on, not on what
   * steps of other branches that completed before the point's turn changed.
   */
  seen?: ExpressionContext;
}

/**
 * Whether `bp` hits at `point` by what the point alone says: its type, step path and filters.
 * Expression breakpoints (conditional, watch, and a foreach_item's `expression`) are evaluated
 * by the caller on top of this.
 */
export function matchesPoint(bp: Breakpoint, point: Point): boolean {
  if (BREAKPOINT_TYPE_AT[point.phase] !== bp.type) return false;
  switch (bp.type) {
    case "before_step":
    case "after_step":
      return stepMatches(bp.step, point.path);
    case "on_error":
      return bp.step === undefined || stepMatches(bp.step, point.path);
    case "on_retry":
      return (
        (bp.step === undefined || stepMatches(bp.step, point.path)) &&
        (bp.attempt === undefined || bp.attempt === point.occurrence)
      );
    case "foreach_item":
      return stepMatches(bp.step, point.path) && (bp.index === undefined || bp.index === point.occurrence);
    case "tool_call":
      return (
        (bp.step === undefined || stepMatches(bp.step, point.path)) &&
        (bp.server === undefined || bp.server === point.toolCall?.server) &&
        (bp.tool === undefined || bp.tool === point.toolCall?.tool)
      );
    case "usage":
      return point.usage !== undefined && usageReached(bp, point.usage.totals, point.usage.estimate);
    default:
      return false;
  }
}

/**
 * The usage rule (docs/debugger.md): the call is expected to cost what the step's previous call
 * in this attempt did (nothing for its first), and the breakpoint hits before a call once the
 * totals so far plus that reach a threshold.
 */
function usageReached(bp: Extract<Breakpoint, { type: "usage" }>, totals: Usage, estimate: Usage): boolean {
  if (bp.tokens !== undefined && totals.totalTokens + estimate.totalTokens >= bp.tokens) return true;
  return bp.costUsd !== undefined && totals.costUsd + estimate.costUsd >= bp.costUsd;
}

/** How deep each step sits: 0 at the top level, 1 inside a foreach or parallel, and so on. */
export function stepDepths(workflow: Workflow): Map<string, number> {
  const depths = new Map<string, number>();
  walkSteps(workflow.steps, (step, parents) => depths.set(step.name, parents.length));
  return depths;
}
