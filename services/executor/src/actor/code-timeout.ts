import { PLAN_CODE_TIMEOUT_SECONDS, type Plan } from "@wf/shared/auth";
import type { CodeRequest } from "../code/index";

/**
 * `req` with its timeout within its owner's plan's bound (PLAN_CODE_TIMEOUT_SECONDS; an owner of no known plan counts
 * as `free`, as in the pools), and the line its step's log begins with when it was cut: a workflow saved before the
 * bound or before its owner moved to a smaller plan runs, but holds a slot of the shared pools no longer than any.
 */
export function withinPlanTimeout(req: CodeRequest, plan: Plan | undefined): { req: CodeRequest; note?: string } {
  const known = plan ?? "free";
  const mostMs = PLAN_CODE_TIMEOUT_SECONDS[known] * 1000;
  if (req.timeoutMs <= mostMs) return { req };
  return {
    req: { ...req, timeoutMs: mostMs },
    note:
      `[timeout] the step asks for ${req.timeoutMs / 1000} s; the ${known} plan runs a code step for at most ` +
      `${mostMs / 1000} s, so it runs with ${mostMs / 1000} s`,
  };
}
