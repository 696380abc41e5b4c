import { request } from "node:http";
import { Counter, Histogram, Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../log/index";
import type { OpsSource } from "./ops-source";
import { localSource } from "./ops-source";
import { startOpsServer, type OpsServer } from "./ops-server";
import { reportOf, OK } from "./ready-report";

const log = createLogger("silent");
let server: OpsServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function listen(sources: () => readonly OpsSource[] | null): Promise<OpsServer> {
  server = await startOpsServer({ host: "127.0.0.1", port: 0, log, sources });
  return server;
}

function get(s: OpsServer, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`http://127.0.0.1:${s.port}${path}`, init);
}

/** A part with a registry of its own, as a thread or worker process has. */
async function part(name: string | null, fill: (registry: Registry) => void): Promise<OpsSource> {
  const registry = new Registry();
  fill(registry);
  const json = await registry.getMetricsAsJSON();
  return { name, ready: async () => reportOf({}), metrics: async () => [json] };
}

describe("the ops listener", () => {
  it("says it is alive, and not ready while the process starts", async () => {
    const s = await listen(() => null);
    expect(await (await get(s, "/healthz")).json()).toEqual({ status: "ok" });
    const ready = await get(s, "/readyz");
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "not ready", checks: { process: "starting" } });
    expect((await get(s, "/metrics")).status).toBe(503);
  });

  it("is ready when every part is, and names each part's failing check otherwise", async () => {
    let threadReady = true;
    const thread: OpsSource = {
      name: "executor thread",
      ready: async () => reportOf({ nats: threadReady ? OK : "disconnected, reconnecting" }),
      metrics: async () => [],
    };
    const s = await listen(() => [localSource({ metrics: [], processMetrics: false }), thread]);
    const ready = await get(s, "/readyz");
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { status: "ready", checks: { "executor thread: nats": OK } },
    ]);
    threadReady = false;
    const notReady = await get(s, "/readyz");
    expect([notReady.status, await notReady.json()]).toEqual([
      503,
      { status: "not ready", checks: { "executor thread: nats": "disconnected, reconnecting" } },
    ]);
  });

  it("merges the parts' metrics: counters and histograms added up by labels", async () => {
    const fill = (n: number) => (registry: Registry) => {
      const c = new Counter({ name: "t_total", help: "t", labelNames: ["source"], registers: [registry] });
      c.inc({ source: "api" }, n);
      const h = new Histogram({ name: "t_seconds", help: "t", buckets: [1], registers: [registry] });
      h.observe(0.5);
    };
    const parts = [await part(null, fill(2)), await part("worker", fill(3))];
    const s = await listen(() => parts);
    const res = await get(s, "/metrics");
    expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('t_total{source="api"} 5');
    expect(text).toContain('t_seconds_bucket{le="1"} 2');
    expect(text).toContain("t_seconds_count 2");
  });

  it("takes only GET and HEAD, without a body, on its three paths", async () => {
    const s = await listen(() => []);
    const post = await get(s, "/metrics", { method: "POST", body: "x" });
    expect([post.status, post.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
    expect((await get(s, "/healthz", { method: "HEAD" })).status).toBe(200);
    expect((await get(s, "/nothing")).status).toBe(404);
    expect((await get(s, "/healthz?probe=1")).status).toBe(200);
    const withBody = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port: s.port, path: "/healthz", method: "GET", headers: { "content-length": "5" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end("hello");
    });
    expect(withBody).toBe(413);
  });
});
