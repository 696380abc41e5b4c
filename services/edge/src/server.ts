import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { followLaneBacklog, whileStarting } from "@wf/shared/nats";
import { SCOPES, type Scope } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import { platformHealth, readyAnswer } from "@wf/shared/ops";
import type { Platform } from "@wf/shared/runtime";
import { registerApprovalLink } from "./approval-link/routes";
import { DEFAULT_CONSOLE_DIR, registerConsoleApp } from "./console-app/serve";
import { authenticate, pathOf } from "./auth/authenticate";
import { authenticateSession } from "./console/authenticate-session";
import { openEdgeContext, type EdgeOptions } from "./context-open";
import type { EdgeContext } from "./context";
import { errorAnswer } from "./errors";
import { observeRequests } from "./ops/http-metrics";
import { reportTriggerLatency } from "./ops/trigger-latency";
import { apiRoutes, consoleApi, sessionRoutes } from "./routes/index";
import { registerRoutes } from "./routes/route";
import { depthError } from "./routes/validate";
import { registerWebhookTrigger } from "./webhooks/trigger";

/** Default body limit for every route; routes that need more (or less) set their own. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The longest path segment the router takes. Well over any id's limit (128), so that a too-long
 * id is the validating schema's 400 naming the field; a longer one is refused by the router (414).
 */
export const MAX_PARAM_LENGTH = 512;

const scopes: ReadonlySet<string> = new Set(SCOPES);

/**
 * The HTTP edge: health, the v1 API, the signed artifact download, the webhook triggers and the
 * console (session login, webhook management). It never runs user code:
 * it only reads records and publishes commands. Fastify's own request logging stays off, so no
 * header or query string (which may carry an API key) is ever logged; errors are logged by
 * method and path only.
 */
export async function buildEdge(p: Platform, opts: EdgeOptions = {}): Promise<FastifyInstance> {
  const ctx = await openEdgeContext(p, opts);
  // X-Forwarded-For is believed only from the configured proxies (request.ip follows it).
  // Every error answer, the router's and the HTTP parser's included, is errorAnswer's `{error, code}`.
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: p.config.WF_TRUSTED_PROXIES ?? false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (err, request, reply) => sendError(ctx, request, reply, err),
    clientErrorHandler: clientError,
  });
  app.decorateRequest("caller", null);
  app.decorateRequest("consoleUser", null);

  // JSON only (anything else is a 415); an empty body is no body, and every body is optional;
  // one nested past MAX_JSON_DEPTH is a 400 before anything recursive sees it.
  app.removeAllContentTypeParsers();
  // Typed as either parser form, it is the callback form: it calls `done` and returns nothing.
  const json = app.getDefaultJsonParser("error", "error") as (
    request: FastifyRequest,
    body: string,
    done: (err: Error | null, parsed?: unknown) => void,
  ) => void;
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    json(request, text, (err, parsed) => {
      if (err)
        done(
          new WfError("VALIDATION_FAILED", `invalid JSON body: ${err.message}`, [
            { in: "body", field: "", message: err.message },
          ]),
          undefined,
        );
      else done(depthError(parsed), parsed);
    });
  });

  app.addHook("onRequest", async (request, reply) => {
    const auth = request.routeOptions.config.auth;
    if (auth !== undefined && scopes.has(auth)) request.caller = await authenticate(ctx, request, reply, auth as Scope);
    else if (auth === "console") request.consoleUser = await authenticateSession(ctx, request);
  });

  app.addHook("preClose", async () => ctx.closing.abort());
  app.addHook("onClose", async () => {
    unfollowLanes();
    await Promise.all([ctx.counters.close(), ctx.webhookStats.close(), ctx.audit.close()]);
    ctx.publisher.close();
  });
  observeRequests(app);
  reportTriggerLatency(app, p.nc, ctx.ns);
  const unfollowLanes = followLaneBacklog(p.nc, ctx.ns, ctx.lanes);
  app.get("/healthz", async () => ({
    status: "ok",
    nats: p.nc.isClosed() ? "closed" : "connected",
    store: p.store.kind,
  }));
  app.get("/readyz", async (_request, reply) => {
    const { status, body } = await readyAnswer(() => platformHealth(p).report());
    return reply.code(status).send(body);
  });
  registerRoutes(app, apiRoutes, ctx);
  registerRoutes(app, sessionRoutes, ctx);
  registerRoutes(app, consoleApi, ctx);
  registerWebhookTrigger(app, ctx);
  registerApprovalLink(app, ctx);
  registerConsoleApp(app, p.config.WF_CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR);

  app.setNotFoundHandler((request, reply) => {
    sendError(ctx, request, reply, new WfError("NOT_FOUND", `no route ${request.method} ${pathOf(request)}`));
  });
  app.setErrorHandler((err, request, reply) => sendError(ctx, request, reply, err));
  return app;
}

function sendError(ctx: EdgeContext, request: FastifyRequest, reply: FastifyReply, err: unknown): void {
  const { status, body } = errorAnswer(err);
  // A full queue of password checks is a refusal under load (wf_console_logins_total counts the
  // logins'), not a failure: a line each would let a flood of logins fill the log.
  if (status >= 500 && body.code !== "PASSWORD_CHECKS_BUSY")
    ctx.log.error("request failed", { method: request.method, path: pathOf(request), status, err });
  void reply.code(status).type("application/json; charset=utf-8").send(body);
}

/**
 * A request the HTTP parser refused before Fastify saw it (malformed, headers too large, too
 * slow): answered on the socket as Fastify's default handler does, but in the error shape.
 */
function clientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [statusCode, message] =
    err.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "request timeout: the request did not arrive in time"]
      : err.code === "HPE_HEADER_OVERFLOW"
        ? [431, "request header fields too large"]
        : [400, "bad request: the HTTP request is malformed"];
  const { status, body } = errorAnswer(Object.assign(new Error(message), { statusCode }));
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(err);
}

export async function startEdge(p: Platform, opts: EdgeOptions = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const app = await buildEdge(p, opts);
  const address = await app.listen({ port: p.config.PORT, host: p.config.HOST });
  p.log.info("edge listening", { address });
  // The in-memory views of the execution and approval lists are built by the first list that asks:
  // the executions' receives every change of every execution's list entry, which costs an edge
  // taking in webhooks a quarter more CPU per trigger. Told to (WF_LIST_VIEW_AT_START=1) the edge
  // builds them once it serves, not before: over a million executions that takes seconds, and a
  // cluster moving leaders can hold its requests, while triggers, starts and reads need none of
  // it. A list asked for meanwhile waits for it; one asked for after this gave up starts it again.
  if (p.config.WF_LIST_VIEW_AT_START) {
    void whileStarting(() => p.store.executions.startListing()).catch((err: unknown) =>
      p.log.warn("the execution lists' view did not start; the next list starts it", { err }),
    );
    void whileStarting(() => p.store.approvals.startListing()).catch((err: unknown) =>
      p.log.warn("the approval lists' view did not start; the next list starts it", { err }),
    );
  }
  return { url: address, stop: () => app.close() };
}
