import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../execution";
import { connectNats, ONE_REPLICA } from "../nats";
import { JetStreamPublisher } from "../store";
import { Kvm } from "@nats-io/kv";
import { startNatsServer, waitFor, type NatsServerHandle } from "@wf/testing";
import { WindowCounters } from "./window-counters";
import { counterKey } from "./windows";

let server: NatsServerHandle;
const connections: NatsConnection[] = [];

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  for (const nc of connections) await nc.close();
  await server?.stop();
});

/** A replica: its own connection and its own memory of revisions. */
async function replica(ns: string): Promise<WindowCounters> {
  const nc = await connectNats(server.url, "counters-test");
  connections.push(nc);
  return WindowCounters.open(nc, ns, ONE_REPLICA, new JetStreamPublisher(nc));
}

const T = Date.UTC(2030, 0, 15, 10, 0, 5);

describe("window counters", () => {
  it("gives every request of concurrent replicas its own rank, and loses none", async () => {
    const ns = `c${newId().slice(-8)}`;
    const [a, b] = await Promise.all([replica(ns), replica(ns)]);
    const counts = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).count("key1", T)));
    const ranks = (w: "minute" | "day") => counts.map((c) => c[w]).sort((x, y) => x - y);
    expect(ranks("minute")).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(ranks("day")).toEqual(ranks("minute"));
    expect(await a.count("key1", T)).toEqual({ minute: 201, day: 201 });
    expect(await b.count("key2", T)).toEqual({ minute: 1, day: 1 });
  });

  it("adds amounts of concurrent replicas, each resolving to a total with it, and requests beside them count one", async () => {
    const ns = `c${newId().slice(-8)}`;
    const [a, b] = await Promise.all([replica(ns), replica(ns)]);
    const sizes = Array.from({ length: 40 }, (_, i) => 1_000 + i);
    const totals = await Promise.all(sizes.map((n, i) => (i % 2 ? a : b).addAmount("bytes", n, T)));
    const sum = sizes.reduce((x, y) => x + y, 0);
    // Each total is what was counted up to it: all different, the last the whole sum.
    expect(new Set(totals.map((t) => t.day)).size).toBe(sizes.length);
    expect(Math.max(...totals.map((t) => t.day))).toBe(sum);
    expect(await a.addAmount("bytes", 5, T)).toEqual({ minute: sum + 5, day: sum + 5 });
    expect(await b.count("bytes", T)).toEqual({ minute: sum + 6, day: sum + 6 });
    expect(await a.addAmount("bytes", 7, Date.UTC(2030, 0, 16, 0, 0, 1))).toEqual({ minute: 7, day: 7 });
  });

  it("restarts the minute at each minute boundary and the day at 00:00 UTC", async () => {
    const ns = `c${newId().slice(-8)}`;
    const [a, b] = await Promise.all([replica(ns), replica(ns)]);
    await a.count("k", T);
    await b.count("k", T + 1_000);
    expect(await a.count("k", T + 55_000)).toEqual({ minute: 1, day: 3 });
    expect(await b.count("k", T + 56_000)).toEqual({ minute: 2, day: 4 });
    // A replica whose clock lags counts in the minute the other already moved on to.
    expect(await a.count("k", T + 50_000)).toEqual({ minute: 3, day: 5 });
    expect(await a.count("k", Date.UTC(2030, 0, 16, 0, 0, 1))).toEqual({ minute: 1, day: 1 });
  });

  it("answers at most 1% of the minute limit ahead of its writes, and loses no count", async () => {
    const ns = `c${newId().slice(-8)}`;
    const [a, b] = await Promise.all([replica(ns), replica(ns)]);
    const limits = { perMinute: 1_000, perDay: null };
    await Promise.all([a.count("k", T), b.count("k", T)]);
    // Alternating replicas, no write awaited: each may run ten ahead, then waits for its writes.
    const ranks: number[] = [];
    for (let i = 0; i < 60; i++) ranks.push((await (i % 2 ? a : b).count("k", T, limits)).minute);
    expect(Math.max(...ranks)).toBeGreaterThan(30);
    // An exact count resolves once everything its replica counted before it is written.
    await Promise.all([a.count("k", T), b.count("k", T)]);
    expect(await a.count("k", T)).toEqual({ minute: 65, day: 65 });
  });

  it("writes the counts it answered ahead when closed, without waiting for their linger", async () => {
    const ns = `c${newId().slice(-8)}`;
    const [a, b] = await Promise.all([replica(ns), replica(ns)]);
    const limits = { perMinute: 1_000, perDay: null };
    await a.count("k", T);
    // Answered at once from a's own view; their write lingers.
    for (let i = 0; i < 5; i++) expect((await a.count("k", T, limits)).minute).toBe(i + 2);
    await a.close();
    expect(await b.count("k", T)).toEqual({ minute: 7, day: 7 });
    await b.close();
  });

  it("writes the counts a busy key answered ahead together, at most one write per 200 ms", async () => {
    const ns = `c${newId().slice(-8)}`;
    const [a, b] = await Promise.all([replica(ns), replica(ns)]);
    const limits = { perMinute: 1_000, perDay: null };
    await a.count("k", T);
    // Five answered ahead, 30 ms apart.
    const first = performance.now();
    for (let i = 0; i < 5; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 30));
      expect((await a.count("k", T, limits)).minute).toBe(i + 2);
    }
    const spreadMs = performance.now() - first;
    await waitFor(async () => (await b.peek("k", T)).minute === 6, { what: "the five counts to be written" });
    const kv = await new Kvm(connections.at(-1)!).open(`${ns}_ratelimits`);
    // The exact count's write, then one per started 200 ms of the five (one, unless this machine stalled).
    const writes = (await kv.get(counterKey("k", T)))!.revision - 1;
    expect(writes).toBeGreaterThanOrEqual(1);
    expect(writes).toBeLessThanOrEqual(Math.ceil(spreadMs / 200));
  });

  it("counts exactly near a limit, whatever the other replicas did", async () => {
    const ns = `c${newId().slice(-8)}`;
    const [a, b] = await Promise.all([replica(ns), replica(ns)]);
    const limits = { perMinute: 2_000, perDay: null };
    await Promise.all([a.count("k", T), b.count("k", T)]);
    const ranks = await Promise.all(Array.from({ length: 1_900 }, (_, i) => (i % 2 ? a : b).count("k", T, limits)));
    const nearLimit = ranks.map((r) => r.minute).filter((r) => r > limits.perMinute * 0.9);
    expect(nearLimit.length).toBeGreaterThan(0);
    expect(new Set(nearLimit).size).toBe(nearLimit.length);
    await Promise.all([a.count("k", T), b.count("k", T)]);
    expect(await a.count("k", T)).toEqual({ minute: 1_905, day: 1_905 });
  });
});
