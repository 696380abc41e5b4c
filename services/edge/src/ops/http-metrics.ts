import type { FastifyInstance } from "fastify";
import { Histogram } from "@wf/shared/metrics";

const requestDuration = new Histogram({
  name: "wf_http_request_duration_seconds",
  help: "Time the edge took to answer a request, from its arrival to the end of the answer, by method, route pattern and status code.",
  labelNames: ["method", "route", "status_code"],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [],
});

export const httpMetrics = [requestDuration];

/**
 * Times every request the router took (the parser's refusals never reach it). The route is the
 * pattern it matched (`/api/v1/executions/:id`), never the URL, and `unmatched` for a 404 of no
 * route: ids and query strings never become labels.
 */
export function observeRequests(app: FastifyInstance): void {
  app.addHook("onResponse", (request, reply, done) => {
    requestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? "unmatched", status_code: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done();
  });
}
