import type { FastifyRequest } from "fastify";
import type { Plan } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import type { EdgeContext } from "../context";
import { readCookie, SESSION_COOKIE } from "./cookie";
import { csrfMatches } from "./sessions";

/** Who a console request is: the session's user. */
export interface ConsoleUser {
  userId: string;
  plan: Plan;
  sessionId: string;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Console routes accept only the session cookie, never API keys (docs/webhooks.md). The user record
 * is read on every request so that a deactivation holds at once; state-changing requests also
 * need the session's CSRF token in `X-CSRF-Token`, which a cross-site page cannot read.
 */
export async function authenticateSession(ctx: EdgeContext, request: FastifyRequest): Promise<ConsoleUser> {
  const now = ctx.clock();
  const sessionId = readCookie(request.headers.cookie, SESSION_COOKIE);
  const session = sessionId === undefined ? null : await ctx.sessions.get(sessionId, now);
  if (!session || sessionId === undefined)
    throw new WfError("SESSION_REQUIRED", "unauthorized: log in to the console first (POST /api/console/login)");
  const user = await ctx.store.users.get(session.userId);
  if (!user)
    throw new WfError("SESSION_REQUIRED", "unauthorized: log in to the console first (POST /api/console/login)");
  if (user.value.status !== "active")
    throw new WfError("ACCOUNT_INACTIVE", `forbidden: your account is ${user.value.status}`);
  const csrf = request.headers["x-csrf-token"];
  if (!SAFE_METHODS.has(request.method) && !csrfMatches(session, typeof csrf === "string" ? csrf : undefined)) {
    throw new WfError("CSRF_FAILED", "forbidden: this request needs the X-CSRF-Token header returned by login");
  }
  return { userId: user.value.id, plan: user.value.plan, sessionId };
}
