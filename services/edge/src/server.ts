import Fastify, { type FastifyInstance } from "fastify";
import type { Platform } from "@wf/shared/runtime";

/** Default body limit for every route; routes that need more (or less) set their own. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The HTTP edge. This version serves health only; the v1 API and webhooks mount here. It never
 * runs user code: it only publishes commands and reads records.
 */
export function buildEdge(p: Platform): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT_BYTES });
  app.get("/healthz", async () => ({ status: "ok", nats: p.nc.isClosed() ? "closed" : "connected", store: p.store.kind }));
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ error: `no route ${req.method} ${req.url.split("?")[0]}` });
  });
  app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
    void reply.code(status).send({ error: status === 500 ? "internal error" : err.message });
  });
  return app;
}

export async function startEdge(p: Platform): Promise<{ url: string; stop(): Promise<void> }> {
  const app = buildEdge(p);
  const address = await app.listen({ port: p.config.PORT, host: p.config.HOST });
  p.log.info("edge listening", { address });
  return { url: address, stop: () => app.close() };
}
