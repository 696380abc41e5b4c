import type { FastifyReply, FastifyRequest } from "fastify";
import { DECOY_PASSWORD_HASH } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import type { UserRecord, Versioned } from "@wf/shared/store";
import { pathOf } from "../auth/authenticate";
import type { EdgeContext } from "../context";
import { AnswerError } from "../errors";
import { countLogin } from "../ops/login-metrics";
import { isBusy } from "./password-checks";

/**
 * Checks a console login's email and password: the throttle first (login-throttle.ts: a
 * refusal there is audited and costs no scrypt), then one password check, queued with the
 * others (password-checks.ts). An unknown email is checked against a decoy, so that it costs
 * what a wrong password costs and is counted as one. Answers the user, active or not.
 */
export async function checkLogin(
  ctx: EdgeContext,
  request: FastifyRequest,
  reply: FastifyReply,
  credentials: { email: string; password: string },
): Promise<Versioned<UserRecord>> {
  const now = ctx.clock();
  const admission = ctx.loginThrottle.admit(credentials.email, request.ip, now);
  if (!admission.admitted) {
    countLogin("throttled");
    await ctx.audit.record({
      at: now,
      reason: "login_throttled",
      keyId: null,
      ip: request.ip,
      method: request.method,
      path: pathOf(request),
    });
    const { retryAfterSeconds } = admission;
    void reply.header("retry-after", retryAfterSeconds);
    throw new AnswerError(
      "LOGIN_THROTTLED",
      `too many failed logins: try again in ${Math.ceil(retryAfterSeconds / 60)} min`,
      { retryAfterSeconds },
    );
  }
  const { attempt } = admission;
  try {
    const user = await ctx.store.users.getByEmail(credentials.email);
    const matches = await ctx.passwordChecks.verify(
      credentials.password,
      user?.value.passwordHash ?? DECOY_PASSWORD_HASH,
      { lanes: attempt.lanes, reply },
    );
    if (!user || !matches) {
      attempt.settle("failed");
      countLogin("wrong");
      throw new WfError("LOGIN_FAILED", "unauthorized: wrong email or password");
    }
    attempt.settle("succeeded");
    countLogin(user.value.status === "active" ? "ok" : "inactive");
    return user;
  } catch (err) {
    if (isBusy(err)) countLogin("busy");
    throw err;
  } finally {
    // The store failed, or the check was refused: no answer about the password, nothing counted.
    attempt.settle("unchecked");
  }
}
