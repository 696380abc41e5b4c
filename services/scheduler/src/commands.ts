import { z } from "zod";

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
