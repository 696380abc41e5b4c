import Fastify, { type FastifyInstance } from "fastify";
import { SCOPES, type Scope } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import type { Platform } from "@wf/shared/runtime";
import { registerApprovalLink } from "./approval-link/routes";
import { authenticate, pathOf } from "./auth/authenticate";
import { authenticateSession } from "./console/authenticate-session";
import { openEdgeContext, type EdgeOptions } from "./context-open";
import { errorAnswer } from "./errors";
import { apiRoutes, sessionRoutes } from "./routes/index";
import { registerRoutes } from "./routes/route";
import { depthError } from "./routes/validate";
import { registerWebhookTrigger } from "./webhooks/trigger";

/** Default body limit for every route; routes that need more (or less) set their own. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

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
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES, trustProxy: p.config.WF_TRUSTED_PROXIES ?? false });
  app.decorateRequest("caller", null);
  app.decorateRequest("consoleUser", null);

  // JSON only (anything else is a 415); an empty body is no body, and every body is optional;
  // one nested past MAX_JSON_DEPTH is a 400 before anything recursive sees it.
  app.removeAllContentTypeParsers();
  const json = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    json(request, text, (err, parsed) => {
      if (err) done(new WfError("VALIDATION_FAILED", `invalid JSON body: ${err.message}`, [{ in: "body", field: "", message: err.message }]), undefined);
      else done(depthError(parsed), parsed);
    });
  });

  app.addHook("onRequest", async (request, reply) => {
    const auth = request.routeOptions.config.auth;
    if (auth !== undefined && scopes.has(auth)) request.caller = await authenticate(ctx, request, reply, auth as Scope);
    else if (auth === "console") request.consoleUser = await authenticateSession(ctx, request);
  });

  app.addHook("onClose", async () => {
    await Promise.all([ctx.counters.close(), ctx.webhookStats.close()]);
    ctx.publisher.close();
  });
  app.get("/healthz", async () => ({ status: "ok", nats: p.nc.isClosed() ? "closed" : "connected", store: p.store.kind }));
  registerRoutes(app, apiRoutes, ctx);
  registerRoutes(app, sessionRoutes, ctx);
  registerWebhookTrigger(app, ctx);
  registerApprovalLink(app, ctx);

  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ error: `no route ${req.method} ${pathOf(req)}` });
  });
  app.setErrorHandler((err, request, reply) => {
    const { status, body } = errorAnswer(err);
    if (status >= 500) ctx.log.error("request failed", { method: request.method, path: pathOf(request), status, err });
    void reply.code(status).type("application/json; charset=utf-8").send(body);
  });
  return app;
}

export async function startEdge(p: Platform, opts: EdgeOptions = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const app = await buildEdge(p, opts);
  const address = await app.listen({ port: p.config.PORT, host: p.config.HOST });
  p.log.info("edge listening", { address });
  return { url: address, stop: () => app.close() };
}
