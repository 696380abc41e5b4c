import type { FastifyReply, FastifyRequest } from "fastify";
import { PLAN_LIMITS, type AuditReason, type Scope } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import type { EdgeContext } from "../context";
import { AnswerError } from "../errors";
import { judge } from "../rate-limit/limiter";
import type { Caller } from "./caller";
import { extractCredential } from "./credentials";
import { verifyKey } from "./verify-key";

/** The one 401 answer: it never says which check failed (the audit log does). */
export const UNAUTHORIZED_MESSAGE = "unauthorized: a valid API key with the scope this endpoint needs is required";

/** The path of a request without its query string, which may carry a key. */
export function pathOf(request: FastifyRequest): string {
  return request.url.split("?")[0]!;
}

/** Writes the audit record and event of a refused request, then fails it with the one 401 (`message`: the route's words). */
export async function refuse(
  ctx: EdgeContext,
  request: FastifyRequest,
  reason: AuditReason,
  keyId: string | null,
  message = UNAUTHORIZED_MESSAGE,
): Promise<never> {
  await ctx.audit.record({
    at: ctx.clock(),
    reason,
    keyId,
    ip: request.ip,
    method: request.method,
    path: pathOf(request),
  });
  throw new WfError("UNAUTHORIZED", message);
}

/**
 * Authenticates an API-key request and counts it, in this order:
 * credential (401) → key record (401) → [owner ∥ rate counters] → owner's status (403) →
 * scope (401) → quota (429). Counting starts once the key is known to be genuine, so every
 * authenticated request counts whatever its answer, and costs no extra round trip. The owner is
 * read afresh (a suspension holds at once), so the count goes ahead of its write by the plan the
 * key's last request was judged by: a poller does not pay a compare-and-set write per request.
 * Every answer to an authenticated request carries X-RateLimit-Limit/-Remaining/-Window.
 */
export async function authenticate(
  ctx: EdgeContext,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: Scope,
): Promise<Caller> {
  const now = ctx.clock();
  const credential = extractCredential(request);
  if (credential === null) return refuse(ctx, request, "missing", null);
  const check = await verifyKey(ctx.store, credential.value, now);
  if (!check.ok) return refuse(ctx, request, check.reason, check.keyId);
  const key = check.key.value;

  const [owner, counts] = await Promise.all([
    ctx.store.users.get(key.ownerId),
    ctx.counters.countAsLastJudged(key.id, now),
  ]);
  if (!owner) return refuse(ctx, request, "unknown_key", key.id);
  const plan = owner.value.plan;
  ctx.counters.judgedBy(key.id, PLAN_LIMITS[plan]);
  const verdict = judge(counts, PLAN_LIMITS[plan], now);
  void reply.headers({
    "x-ratelimit-limit": verdict.limit,
    "x-ratelimit-remaining": verdict.remaining,
    "x-ratelimit-window": verdict.window,
  });

  if (owner.value.status !== "active") {
    throw new WfError("ACCOUNT_INACTIVE", `forbidden: the account that owns this key is ${owner.value.status}`);
  }
  if (!key.scopes.includes(scope)) return refuse(ctx, request, "insufficient_scope", key.id);
  if (verdict.retryAfterSeconds !== null) {
    void reply.header("retry-after", verdict.retryAfterSeconds);
    throw new AnswerError(
      "RATE_LIMITED",
      `rate limit exceeded: ${verdict.limit} requests per ${verdict.window} for this key (plan ${plan})`,
      {
        window: verdict.window,
        limit: verdict.limit,
        retryAfterSeconds: verdict.retryAfterSeconds,
      },
    );
  }
  ctx.lastUsed.touch(check.key, now);
  return { keyId: key.id, userId: key.ownerId, plan, scopes: key.scopes };
}
