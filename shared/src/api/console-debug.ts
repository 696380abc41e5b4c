import { z } from "zod";
import { BREAKPOINT_TYPES, Breakpoint, DEBUG_COMMANDS, PausePhase } from "../execution/debug";
import { Id } from "./common";
import { ErrorBody } from "./errors";

export const DebugCommandParams = z.strictObject({ id: Id, command: z.enum(DEBUG_COMMANDS) });

export const DebugCommandAccepted = z.object({
  executionId: z.string(),
  command: z.enum(DEBUG_COMMANDS),
  pauseId: z.string().describe("The pause the command won."),
});

export const BreakpointsBody = z.strictObject({
  breakpoints: z
    .array(Breakpoint)
    .max(100)
    .describe("The debug run's breakpoints from now on, replacing the current ones ([] removes them all)."),
  revision: z
    .number()
    .int()
    .nonnegative()
    .describe("The revision of the breakpoints this change was made on (the execution view's `breakpointsRevision`)."),
});

export const BreakpointsAccepted = z.object({
  executionId: z.string(),
  breakpoints: z.array(Breakpoint).describe("As sent, ids assigned where missing."),
  revision: z.number().int().positive().describe("The breakpoints' revision now: the next change is made on it."),
});

/**
 * Why a debug command or a breakpoint change was refused: the run is no debug run, has ended, is
 * not paused, the pause named is not the current one, another command won the pause, or the
 * command does not apply to this pause.
 */
export const DebugRefusal = z.enum(["not_debug", "ended", "no_pause", "stale", "conflict", "invalid"]);
export type DebugRefusal = z.infer<typeof DebugRefusal>;

export const DebugRefusedBody = ErrorBody.extend({ reason: DebugRefusal });

/**
 * A point a branch came to while another branch was paused, where it waits its turn (`debug.waiting`), or a failure
 * held there (`debug.held`): what the console shows of it, never the conversation or the watched values the record
 * keeps with it.
 */
export const DebugWaitingPoint = z.object({
  stepPath: z.string().describe("The step's path: `name`, or `loop[2].name` inside a foreach."),
  phase: PausePhase.describe(
    "Where in the step: `after` it completed, before a `tool_call` or an `llm_call`, or at its failure (`error`).",
  ),
  occurrence: z
    .number()
    .int()
    .nonnegative()
    .describe(
      "Which time the phase comes there: the attempt that failed, the tool call's or LLM call's number; 0 otherwise.",
    ),
  items: z
    .array(z.number().int().nonnegative())
    .describe(
      "The foreach items the step runs in, outermost first (`outer[1].inner[0].x`: [1, 0]); empty outside one.",
    ),
  branch: z.string().nullable().describe("The branch of the innermost `parallel` holding the step; null outside one."),
  breakpoints: z
    .array(z.object({ id: z.string(), type: z.enum(BREAKPOINT_TYPES) }))
    .describe(
      "The enabled breakpoints that may pause there in its turn: those that match the point now, and the watches whose " +
        "value its step changed. Empty: it goes on, or its failure is handled, without pausing. A `hitCount` may " +
        "still let it go on, as may a tool call's server and tool in a record written before points recorded them.",
    ),
  reason: z.string().describe("Why it waits, in a few words: the breakpoints, or the failure's error, cut."),
});
export type DebugWaitingPoint = z.infer<typeof DebugWaitingPoint>;
