import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { AggregatorRegistry, prometheusContentType } from "prom-client";
import type { Logger } from "../log/index";
import type { OpsSource } from "./ops-source";
import { mergeReports, readyAnswer, reportOf, STARTING, type ReadyReport } from "./ready-report";

/** A request must arrive whole within this; probes and scrapes send a few hundred bytes of headers. */
const REQUEST_TIMEOUT_MS = 10_000;
const MAX_HEADER_BYTES = 8 * 1024;

export interface OpsServer {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface OpsServerOptions {
  host: string;
  port: number;
  log: Logger;
  /** What it answers for; null while the process is starting. */
  sources: () => readonly OpsSource[] | null;
}

/**
 * The ops listener: `/healthz`, `/readyz` and `/metrics` (docs/metrics.md) on plain node:http,
 * GET and HEAD only, no request body, no key. It listens apart from the edge's port, so probes
 * and scrapes never meet the API's authentication, rate limits or load.
 */
export async function startOpsServer(opts: OpsServerOptions): Promise<OpsServer> {
  const server = createServer(
    { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS, maxHeaderSize: MAX_HEADER_BYTES },
    (req, res) => {
      answer(req, res, opts.sources()).catch((err: unknown) => {
        opts.log.error("ops request failed", { path: pathOf(req), err });
        if (!res.headersSent) send(res, 500, { error: err instanceof Error ? err.message : String(err) });
        else res.destroy();
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  opts.log.info("ops listening", { host: opts.host, port });
  return {
    host: opts.host,
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, sources: readonly OpsSource[] | null): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD")
    return send(res, 405, { error: "only GET and HEAD" }, { allow: "GET, HEAD" });
  // The body is never read: the connection closes rather than carrying it into a next request.
  if (req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0") {
    return send(res, 413, { error: "no request body is taken" }, { connection: "close" });
  }
  switch (pathOf(req)) {
    case "/healthz":
      return send(res, 200, { status: "ok" });
    case "/readyz": {
      const { status, body } = await readyAnswer(() => (sources ? readiness(sources) : Promise.resolve(STARTING)));
      return send(res, status, body);
    }
    case "/metrics":
      if (!sources) return send(res, 503, { error: "starting" });
      return sendText(res, await metricsText(sources));
    default:
      return send(res, 404, { error: "not found: the ops listener serves /healthz, /readyz and /metrics" });
  }
}

async function readiness(sources: readonly OpsSource[]): Promise<ReadyReport> {
  return mergeReports(
    await Promise.all(
      sources.map(async (s) => ({
        name: s.name,
        report: await s
          .ready()
          .catch((err: unknown) => reportOf({ report: err instanceof Error ? err.message : String(err) })),
      })),
    ),
  );
}

/**
 * Every part's registries merged as prom-client merges a cluster's: counters and histograms added
 * up. What it would leave out as not adding up (a process's start time) is the first registry's,
 * the process's own.
 */
async function metricsText(sources: readonly OpsSource[]): Promise<string> {
  // A part that cannot answer (a thread stopping) leaves its metrics out of this scrape; /readyz names it.
  const parts = await Promise.all(sources.map((s) => s.metrics().catch(() => [])));
  const registries = parts
    .flat()
    .map((registry) => registry.map((m) => (m.aggregator === "omit" ? { ...m, aggregator: "first" as const } : m)));
  return AggregatorRegistry.aggregate(registries).metrics();
}

function pathOf(req: IncomingMessage): string {
  return (req.url ?? "/").split("?")[0]!;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res
    .writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(text),
      ...headers,
    })
    .end(text);
}

function sendText(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": prometheusContentType, "content-length": Buffer.byteLength(text) }).end(text);
}
