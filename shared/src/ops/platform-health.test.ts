import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startNatsServer, waitFor, type NatsServerHandle } from "@wf/testing";
import { loadConfig } from "../config/env";
import { consumerMetrics } from "../metrics/consumer-metrics";
import { ensureConsumer } from "../nats/consumers";
import { streamNames } from "../nats/subjects";
import { openPlatform, type Platform } from "../runtime/platform";
import { platformHealth } from "./platform-health";

let server: NatsServerHandle;
let p: Platform;
const ns = `health${Date.now() % 1_000_000}`;

beforeAll(async () => {
  server = await startNatsServer();
  p = await openPlatform(loadConfig({ NATS_URL: server.url, WF_NAMESPACE: ns, LOG_LEVEL: "silent" }), "test");
});
afterAll(async () => {
  await p?.close();
  await server?.stop();
});

async function pendingGauge(consumer: string): Promise<number | undefined> {
  const values = (await consumerMetrics[0]!.get()).values;
  return values.find((v) => v.labels.consumer === consumer)?.value;
}

describe("a platform's health", () => {
  it("is ready while its streams, buckets and watched consumers exist, and names what is missing", async () => {
    const health = platformHealth(p);
    expect(platformHealth(p)).toBe(health);
    expect(await health.report()).toEqual({ ready: true, checks: { nats: "ok", streams: "ok" } });

    const stream = streamNames(ns).cmd;
    await ensureConsumer(p.jsm, stream, {
      durable: "probe",
      filter: `${ns}.cmd.probe.>`,
      ackWaitMs: 5_000,
      maxDeliver: -1,
      maxAckPending: 10,
    });
    health.watchConsumer(stream, "probe");
    health.watchConsumer(stream, "gone");
    await p.js.publish(`${ns}.cmd.probe.a`, "1");
    await p.js.publish(`${ns}.cmd.probe.b`, "2");
    // Answers are reused for a second: the consumers show on the next round.
    const report = await waitFor(async () => {
      const r = await health.report();
      return "consumers" in r.checks ? r : undefined;
    });
    expect(report).toEqual({
      ready: false,
      checks: { nats: "ok", streams: "ok", consumers: `consumer gone on ${stream} is missing` },
    });
    expect(await pendingGauge("probe")).toBe(2);

    await p.jsm.streams.delete(`KV_${ns}_schedules`);
    const missing = await waitFor(async () => {
      const r = await health.report();
      return r.checks.streams !== "ok" ? r : undefined;
    });
    expect(missing.checks.streams).toBe(`KV_${ns}_schedules is missing`);
  });
});
