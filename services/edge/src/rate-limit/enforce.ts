import type { FastifyReply } from "fastify";
import { PLAN_LIMITS, type Plan } from "@wf/shared/auth";
import { AnswerError } from "../errors";
import { judge } from "./limiter";
import type { WindowCounts } from "@wf/shared/rate-limit";

/**
 * Answers a counted request under its plan's windows: the X-RateLimit headers always, and past a
 * window a 429 with Retry-After; `what` names what was counted ("triggers", "step tests").
 */
export function enforcePlanLimit(
  reply: FastifyReply,
  counts: WindowCounts,
  plan: Plan,
  now: number,
  what: string,
): void {
  const verdict = rateHeaders(reply, counts, plan, now);
  if (verdict.retryAfterSeconds === null) return;
  void reply.header("retry-after", verdict.retryAfterSeconds);
  throw new AnswerError(
    "RATE_LIMITED",
    `rate limit exceeded: ${verdict.limit} ${what} per ${verdict.window} (plan ${plan})`,
    {
      window: verdict.window,
      limit: verdict.limit,
      retryAfterSeconds: verdict.retryAfterSeconds,
    },
  );
}

/** Sets the X-RateLimit headers of a counted request; the verdict they describe. */
export function rateHeaders(reply: FastifyReply, counts: WindowCounts, plan: Plan, now: number) {
  const verdict = judge(counts, PLAN_LIMITS[plan], now);
  void reply.headers({
    "x-ratelimit-limit": verdict.limit,
    "x-ratelimit-remaining": verdict.remaining,
    "x-ratelimit-window": verdict.window,
  });
  return verdict;
}
