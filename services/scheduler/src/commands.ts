import { ExecutionEvent } from "@wf/shared/execution";
import { z } from "zod";
import type { COMPLETION_STATES } from "@wf/shared/workflow";

/**
 * `<ns>.cmd.triggers.<lane>.tick.<workflow>`: a schedule's tick is due. `fingerprint` names the schedule
 * that armed it, so a tick armed before an edit of the workflow's schedule is recognised as stale.
 */
export const TickCommand = z.object({
  kind: z.literal("tick"),
  workflowId: z.string().min(1),
  tickAt: z.number().int(),
  fingerprint: z.string(),
});
export type TickCommand = z.infer<typeof TickCommand>;

/** `<ns>.cmd.triggers.<lane>.chain.<workflow>`: the delay of a chained trigger is over; start its workflow. */
export const ChainFireCommand = z.object({
  kind: z.literal("chain"),
  workflowId: z.string().min(1),
  chainKey: z.string().min(1),
  sourceExecutionId: z.string().min(1),
  dueAt: z.number(),
});
export type ChainFireCommand = z.infer<typeof ChainFireCommand>;

/** The events that end an execution, with the end state a trigger's `on` names. */
export const END_EVENTS = {
  exec_completed: "COMPLETED",
  exec_failed: "FAILED",
  exec_cancelled: "CANCELLED",
  exec_interrupted: "INTERRUPTED",
} as const satisfies Record<string, (typeof COMPLETION_STATES)[number]>;
export type EndEventType = keyof typeof END_EVENTS;

/**
 * `<ns>.cmd.triggers.<lane>.end.<execution>`: an execution ended that a workflow is chained after, handed on from the
 * events' stream to the lane of its owner (chains.ts).
 */
export const ChainEndCommand = ExecutionEvent.extend({ type: z.enum(Object.keys(END_EVENTS) as [EndEventType]) });
export type ChainEndCommand = z.infer<typeof ChainEndCommand>;
