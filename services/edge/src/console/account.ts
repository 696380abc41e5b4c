import { ConsoleSession, ErrorBody, PasswordBody, PasswordChanged, RetryAfterErrorBody } from "@wf/shared/api";
import { CasConflictError, WfError } from "@wf/shared/errors";
import { defineRoute, type Route } from "../routes/route";
import { addressGroup } from "./address-group";

/** The user's own account: who is logged in, changing the password. */
export const consoleAccountRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/console/session",
    operationId: "consoleSession",
    summary: "Who is logged in: the session's user (the console's pages ask this when they load)",
    description:
      "The CSRF token is not sent again: login set it in the `wf_csrf` cookie as well, which the console's pages read.",
    tag: "account",
    auth: "console",
    status: 200,
    responses: {
      200: { description: "The session's user.", schema: ConsoleSession },
      401: { description: "No session.", schema: ErrorBody },
    },
    async handler(_input, { ctx, consoleUser }) {
      const me = consoleUser();
      const user = await ctx.store.users.get(me.userId);
      const session = await ctx.sessions.get(me.sessionId, ctx.clock());
      if (!user || !session)
        throw new WfError("SESSION_REQUIRED", "unauthorized: log in to the console first (POST /api/console/login)");
      return {
        expiresAt: session.expiresAt,
        user: { id: user.value.id, email: user.value.email, plan: user.value.plan },
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/console/password",
    operationId: "consoleChangePassword",
    summary: "Change your password; your other console sessions end, this one stays",
    description:
      "`current` must be the password now in force (403 otherwise); `next` has at least 8 characters. API keys are not affected.",
    tag: "account",
    auth: "console",
    body: PasswordBody,
    status: 200,
    responses: {
      200: { description: "Changed.", schema: PasswordChanged },
      403: {
        description: "PASSWORD_INCORRECT: `current` is not your password; CSRF_FAILED or ACCOUNT_INACTIVE otherwise.",
        schema: ErrorBody,
      },
      503: {
        description:
          "`PASSWORD_CHECKS_BUSY`: too many password checks are waiting on this server; nothing was changed.",
        schema: RetryAfterErrorBody,
      },
    },
    async handler({ body }, { ctx, request, reply, consoleUser }) {
      const { userId, sessionId } = consoleUser();
      const checkFor = { lanes: [addressGroup(request.ip), `user ${userId}`], reply };
      const nextHash = await ctx.passwordChecks.hash(body.next, checkFor);
      for (let attempt = 1; ; attempt++) {
        const user = await ctx.store.users.get(userId);
        if (!user)
          throw new WfError("SESSION_REQUIRED", "unauthorized: log in to the console first (POST /api/console/login)");
        if (!(await ctx.passwordChecks.verify(body.current, user.value.passwordHash, checkFor))) {
          throw new WfError("PASSWORD_INCORRECT", "`current` is not your password; nothing was changed");
        }
        try {
          await ctx.store.users.update({ ...user.value, passwordHash: nextHash, updatedAt: ctx.clock() }, user.version);
          break;
        } catch (err) {
          // A concurrent write of the user (a plan change): read it again and re-check.
          if (!(err instanceof CasConflictError) || attempt >= 5) throw err;
        }
      }
      return { otherSessionsEnded: await ctx.sessions.endOthers(userId, sessionId) };
    },
  }),
];
