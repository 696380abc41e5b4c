import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { createLogger } from "@wf/shared/log";
import { connectNats, ONE_REPLICA } from "@wf/shared/nats";
import { JetStreamPublisher } from "@wf/shared/store";
import { startNatsServer, waitFor, type NatsServerHandle } from "@wf/testing";
import { WebhookStats } from "./stats";

let server: NatsServerHandle;
const connections: NatsConnection[] = [];
const T = Date.UTC(2030, 0, 15, 10, 0, 5);

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  for (const nc of connections) await nc.close();
  await server?.stop();
});

/** A replica: its own connection, publisher and memory of revisions. */
async function replica(ns: string): Promise<WebhookStats> {
  const nc = await connectNats(server.url, "stats-test");
  connections.push(nc);
  return WebhookStats.open(nc, ns, ONE_REPLICA, new JetStreamPublisher(nc), createLogger("silent"));
}

describe("webhook stats", () => {
  it("adds up what replicas counted, accepted and rejected by status", async () => {
    const ns = `s${newId().slice(-8)}`;
    const [a, b] = await Promise.all([replica(ns), replica(ns)]);
    for (let i = 0; i < 30; i++) (i % 2 ? a : b).record("w1", i % 3 ? 202 : 401, T + i, i % 3 ? null : `refused ${i}`);
    const stats = await waitFor(
      async () => {
        const s = await a.get("w1");
        return s.total === 30 ? s : undefined;
      },
      { what: "both replicas' counts", timeoutMs: 10_000 },
    );
    // Of the refusals the replicas counted, the latest one's reason is kept.
    expect(stats).toEqual({
      webhookId: "w1",
      total: 30,
      accepted: 20,
      rejected: { "401": 10 },
      lastRefusals: { "401": { message: "refused 27", at: T + 27 } },
      lastTriggeredAt: T + 29,
    });
    await Promise.all([a.close(), b.close()]);
  });

  it("writes what is queued when closed, without waiting for the linger", async () => {
    const ns = `s${newId().slice(-8)}`;
    const [a, reader] = await Promise.all([replica(ns), replica(ns)]);
    a.record("w2", 202, T, null);
    a.record("w2", 429, T + 1, "rate limit exceeded");
    await a.close();
    expect(await reader.get("w2")).toEqual({
      webhookId: "w2",
      total: 2,
      accepted: 1,
      rejected: { "429": 1 },
      lastRefusals: { "429": { message: "rate limit exceeded", at: T + 1 } },
      lastTriggeredAt: T + 1,
    });
    await reader.close();
  });

  it("drops the queued counts of a webhook it forgets", async () => {
    const ns = `s${newId().slice(-8)}`;
    const a = await replica(ns);
    a.record("w3", 202, T, null);
    await a.forget("w3");
    await a.close();
    expect((await a.get("w3")).total).toBe(0);
  });
});
