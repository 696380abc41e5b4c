import { ApiError } from "../../api/client";
import type { DebugCommandName, DebugRefusal, PauseRecord } from "../../api/types";

export interface CommandSpec {
  name: Exclude<DebugCommandName, "set">;
  label: string;
  /** As in browser devtools. */
  shortcut?: "F8" | "F10" | "F11";
  does: string;
}

/** The command bar, in order; `set` is the editors' Apply. */
export const COMMANDS: CommandSpec[] = [
  { name: "continue", label: "Continue", shortcut: "F8", does: "Run on until the next breakpoint" },
  {
    name: "step",
    label: "Step",
    shortcut: "F10",
    does: "Run to the next step boundary at this level or an outer one, and pause there",
  },
  {
    name: "step_into",
    label: "Step into",
    shortcut: "F11",
    does: "As Step, one level deeper: into a foreach, a parallel or a child workflow",
  },
  { name: "skip", label: "Skip", does: "Do not run the step (further): skipped, or completed with an output you give" },
  { name: "retry", label: "Retry", does: "Run the failed step again now, as a new attempt" },
  { name: "abort", label: "Abort", does: "Cancel the execution" },
];

/**
 * Whether a command applies at this pause (docs/debugger.md, Commands): the service refuses the others as `invalid`.
 */
export function applies(command: DebugCommandName, pause: PauseRecord): boolean {
  if (command === "retry") return pause.phase === "error";
  if (command === "skip")
    return (
      pause.phase === "before" || pause.phase === "error" || pause.phase === "retry" || pause.phase === "tool_call"
    );
  return true;
}

export function commandTitle(c: CommandSpec): string {
  return c.shortcut ? `${c.does} (${c.shortcut})` : c.does;
}

const REFUSALS: Record<DebugRefusal, string> = {
  not_debug: "This execution is not a debug run: it has no pauses to answer.",
  ended: "The run has ended: its breakpoints can no longer change.",
  no_pause: "The run is not paused any more: it went on, or it ended.",
  stale: "The run has moved to another pause since this page showed it: look at the new pause and try again.",
  conflict: "Another command (from another window or person) answered this pause first.",
  invalid: "This command does not apply at this pause.",
};

/** A debug API error in words: a 409's `reason` says which refusal it is; the service's message follows. */
export function debugErrorWords(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error);
  const reason = error.body.reason;
  if (error.status === 409 && typeof reason === "string" && reason in REFUSALS)
    return `${REFUSALS[reason as DebugRefusal]} (${error.message})`;
  if (error.status === 403) return `You may not debug this execution: ${error.message}`;
  return error.message;
}
