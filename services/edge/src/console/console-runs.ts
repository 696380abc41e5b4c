import type { FastifyReply } from "fastify";
import { PLAN_LIMITS } from "@wf/shared/auth";
import type { EdgeContext } from "../context";
import { enforcePlanLimit } from "../rate-limit/enforce";
import type { ConsoleUser } from "./authenticate-session";

/**
 * Counts a run the console starts under the user's plan's windows, per user and per kind ("console runs": a run, a
 * debug run, a rerun; "step tests"), apart from the keys': past them the answer is a 429. Without it one session
 * started 889 runs a second (35,546 in 40 s, 670 MB of records), outside every limit the API keeps.
 */
export async function countConsoleRun(
  ctx: EdgeContext,
  reply: FastifyReply,
  user: Pick<ConsoleUser, "userId" | "plan">,
  what: "console runs" | "step tests" = "console runs",
): Promise<void> {
  const now = ctx.clock();
  const counts = await ctx.counters.count(`${what.replace(" ", "-")}-${user.userId}`, now, PLAN_LIMITS[user.plan]);
  enforcePlanLimit(reply, counts, user.plan, now, what);
}

/** The 429 of a route that counts console runs. */
export const CONSOLE_RUNS_LIMITED =
  "Past the plan's console runs per minute or per day (the same numbers as its requests per key; counted per user, apart from the keys and the step tests): `Retry-After` says when to try again.";
