import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@nats-io/nats-core";
import type { FastifyInstance } from "fastify";
import type { EdgeLatency } from "@wf/shared/messages";
import { subjects } from "@wf/shared/nats";
import { fastifyPath } from "../routes/route";
import { workflowRoutes } from "../routes/workflows";
import { triggerRouteDocs } from "../webhooks/trigger-doc";

/** How often an edge says how slowly it answered triggers, and the span it judges. */
const REPORT_MS = 500;
/**
 * Answers a span keeps for its percentile; past this many, a uniform sample of them (reservoir): 8,192 hold a 99th
 * percentile within a fraction of a percentile at any rate, in 64 KB.
 */
const MAX_KEPT = 8_192;

/** The routes that start executions: the webhook trigger (both paths) and the API's start, all POST. */
const TRIGGER_ROUTES = new Set(
  [...triggerRouteDocs, ...workflowRoutes.filter((route) => route.operationId === "startExecution")].map((route) =>
    fastifyPath(route.path),
  ),
);

/**
 * Times this edge's answers to triggers and, every REPORT_MS in which it answered some, publishes their 99th
 * percentile on `<ns>.edge.latency` (EdgeLatency): the executors yield to triggers only while an edge is slow
 * (docs/operations.md#triggers-first-the-executors-yield). Core NATS: a report lost is replaced by the next.
 */
export function reportTriggerLatency(app: FastifyInstance, nc: NatsConnection, ns: string): void {
  const subject = subjects(ns).edgeLatency;
  const edge = randomBytes(6).toString("hex");
  const span = new LatencySpan();
  app.addHook("onResponse", (request, reply, done) => {
    if (request.method === "POST" && TRIGGER_ROUTES.has(request.routeOptions.url ?? "")) span.add(reply.elapsedTime);
    done();
  });
  const timer = setInterval(() => {
    const p99Ms = span.p99();
    if (p99Ms === null || nc.isClosed()) return;
    const report: EdgeLatency = { edge, p99Ms: Math.round(p99Ms * 100) / 100, triggers: span.seen };
    span.clear();
    nc.publish(subject, JSON.stringify(report));
  }, REPORT_MS);
  timer.unref();
  app.addHook("onClose", async () => clearInterval(timer));
}

/** The answer times of one span, a uniform sample of at most MAX_KEPT of them. */
export class LatencySpan {
  readonly #kept = new Float64Array(MAX_KEPT);
  /** Answers seen in the span, kept or not. */
  seen = 0;

  add(ms: number): void {
    const i = this.seen < MAX_KEPT ? this.seen : Math.floor(Math.random() * (this.seen + 1));
    if (i < MAX_KEPT) this.#kept[i] = ms;
    this.seen += 1;
  }

  /** The 99th percentile (nearest rank) of the span's answers, in ms; null with none. */
  p99(): number | null {
    const n = Math.min(this.seen, MAX_KEPT);
    if (n === 0) return null;
    const sorted = this.#kept.subarray(0, n).sort();
    return sorted[Math.ceil(0.99 * n) - 1]!;
  }

  clear(): void {
    this.seen = 0;
  }
}
