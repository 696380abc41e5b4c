import { ErrorBody, LoginBody, LoginResponse, RetryAfterErrorBody } from "@wf/shared/api";
import { claimInvitations } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import { defineRoute, type Route } from "../routes/route";
import { csrfCookie, sessionCookie } from "./cookie";
import { checkLogin } from "./login";

export const consoleRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/console/login",
    operationId: "consoleLogin",
    summary: "Log in to the console: sets the session cookie and returns the CSRF token",
    tag: "console",
    auth: "public",
    body: LoginBody,
    status: 200,
    responses: {
      200: { description: "Logged in.", schema: LoginResponse },
      401: { description: "Wrong email or password.", schema: ErrorBody },
      429: {
        description:
          "`LOGIN_THROTTLED`: too many failed logins for this email from this address, or from this address; the password was not checked.",
        schema: RetryAfterErrorBody,
      },
      503: {
        description:
          "`PASSWORD_CHECKS_BUSY`: too many password checks are waiting on this server; nothing was checked.",
        schema: RetryAfterErrorBody,
      },
    },
    async handler({ body }, { ctx, request, reply }) {
      const user = await checkLogin(ctx, request, reply, {
        email: body.email.trim().toLowerCase(),
        password: body.password,
      });
      if (user.value.status !== "active")
        throw new WfError("ACCOUNT_INACTIVE", `forbidden: your account is ${user.value.status}`);
      // Invitations its account's making did not take (a crash in between): taken now, before it lists its workflows.
      await claimInvitations(ctx.store, user.value).catch((err: unknown) =>
        ctx.log.warn("could not take the workflows shared with a user's email before its account", {
          err,
          userId: user.value.id,
        }),
      );
      const session = await ctx.sessions.create(user.value.id, ctx.clock());
      const secure = ctx.config.WF_SESSION_COOKIE_SECURE;
      void reply.header("set-cookie", [
        sessionCookie(session.sessionId, ctx.config.WF_SESSION_TTL_S, secure),
        csrfCookie(session.csrfToken, ctx.config.WF_SESSION_TTL_S, secure),
      ]);
      return {
        csrfToken: session.csrfToken,
        expiresAt: session.expiresAt,
        user: { id: user.value.id, email: user.value.email, plan: user.value.plan },
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/console/logout",
    operationId: "consoleLogout",
    summary: "End the console session",
    tag: "console",
    auth: "console",
    status: 204,
    responses: { 204: { description: "Logged out; the cookie is cleared." } },
    async handler(_input, { ctx, reply, consoleUser }) {
      await ctx.sessions.end(consoleUser().sessionId);
      const secure = ctx.config.WF_SESSION_COOKIE_SECURE;
      void reply.header("set-cookie", [sessionCookie("", 0, secure), csrfCookie("", 0, secure)]);
      return undefined;
    },
  }),
];
