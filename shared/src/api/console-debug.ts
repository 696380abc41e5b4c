import { z } from "zod";
import { Breakpoint, DEBUG_COMMANDS } from "../execution/debug";
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
