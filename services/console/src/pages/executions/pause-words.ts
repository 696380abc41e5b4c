import type { PauseRecord } from "../../api/types";
import { breakpointLabel } from "./breakpoints";

/** The breakpoint id of a stepped-into child's first pause (the executor's STEP_INTO_CHILD). */
const STEP_INTO_CHILD = "step_into";

/** Where in the step the run waits, after "paused": `before item 2 of the foreach each`. */
export function pausePoint(
  pause: Pick<PauseRecord, "phase" | "stepPath" | "occurrence"> & {
    context?: Pick<PauseRecord["context"], "toolCall">;
  },
): string {
  const step = pause.stepPath;
  const n = pause.occurrence;
  switch (pause.phase) {
    case "before":
      return `before ${step} starts`;
    case "after":
      return `after ${step} completed`;
    case "error":
      return `where attempt ${n} of ${step} failed`;
    case "retry":
      return `before attempt ${n} of ${step}, a retry`;
    case "item":
      return `before item ${n} of the foreach ${step}`;
    case "tool_call": {
      const call = pause.context?.toolCall;
      return `before ${step} calls ${call ? `the tool ${call.server}/${call.tool}` : "a tool"} (its tool call ${n})`;
    }
    case "llm_call":
      return `before LLM call ${n} of ${step}`;
  }
}

/** Why and where the run waits, as a sentence: `Before step breakpoint bp1 paused the run before greet starts.` */
export function pauseSentence(pause: PauseRecord): string {
  const where = pausePoint(pause);
  if (pause.breakpointId === "step") return `A step command asked to pause here, ${where}.`;
  if (pause.breakpointId === STEP_INTO_CHILD) return `Step into started this run, the step's child, paused ${where}.`;
  return `${breakpointLabel(pause.type)} breakpoint ${pause.breakpointId} paused the run ${where}.`;
}

/**
 * What the error a pause shows is: the failure of the attempt paused at (on_error), the failure
 * that led to the attempt about to start (on_retry), else an expression that failed (the
 * breakpoint's, or the step's input).
 */
export function pauseErrorTitle(pause: Pick<PauseRecord, "phase" | "occurrence">): string {
  if (pause.phase === "error") return `Attempt ${pause.occurrence} failed`;
  if (pause.phase === "retry") return `Attempt ${pause.occurrence} is next; attempt ${pause.occurrence - 1} failed`;
  return "An expression failed";
}
