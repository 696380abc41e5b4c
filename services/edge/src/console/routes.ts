import { ErrorBody, LoginBody, LoginResponse } from "@wf/shared/api";
import { hashPassword, verifyPassword } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import { defineRoute, type Route } from "../routes/route";
import { csrfCookie, sessionCookie } from "./cookie";

// Unknown emails still pay one scrypt, so that timing does not tell which emails exist.
let decoyHash: Promise<string> | undefined;

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
    responses: { 200: { description: "Logged in.", schema: LoginResponse }, 401: { description: "Wrong email or password.", schema: ErrorBody } },
    async handler({ body }, { ctx, reply }) {
      const user = await ctx.store.users.getByEmail(body.email.trim().toLowerCase());
      decoyHash ??= hashPassword("decoy password");
      const matches = await verifyPassword(body.password, user?.value.passwordHash ?? (await decoyHash));
      if (!user || !matches) throw new WfError("LOGIN_FAILED", "unauthorized: wrong email or password");
      if (user.value.status !== "active") throw new WfError("ACCOUNT_INACTIVE", `forbidden: your account is ${user.value.status}`);
      const session = await ctx.sessions.create(user.value.id, ctx.clock());
      const secure = ctx.config.WF_SESSION_COOKIE_SECURE;
      void reply.header("set-cookie", [
        sessionCookie(session.sessionId, ctx.config.WF_SESSION_TTL_S, secure),
        csrfCookie(session.csrfToken, ctx.config.WF_SESSION_TTL_S, secure),
      ]);
      return { csrfToken: session.csrfToken, expiresAt: session.expiresAt, user: { id: user.value.id, email: user.value.email, plan: user.value.plan } };
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
