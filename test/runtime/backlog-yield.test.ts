import { jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executorMetrics } from "@wf/executor";
import { ownerLane, START_LANES } from "@wf/shared/execution";
import { consumerNames, streamNames, subjects } from "@wf/shared/nats";
import {
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import type { NatsServerHandle } from "@wf/testing";
import { quietOwner } from "../support/lane-owners";

/**
 * Triggers first: an executor whose work queue grows fast while an edge answers triggers slowly takes fewer executions
 * at once (WF_EXEC_YIELD_CONCURRENCY), and all again once it stops growing. What it holds is what the
 * NATS server counts as delivered and unacknowledged on its start lanes' consumers.
 */
let server: NatsServerHandle;
let rt: InProcessRuntime;

beforeAll(async () => {
  server = await startNatsServer();
  rt = await startRuntime(
    testConfig(server, {
      WF_EXEC_CONCURRENCY: "4",
      WF_EXEC_YIELD_CONCURRENCY: "1",
      WF_EXEC_YIELD_GROWTH: "5",
      WF_EXEC_YIELD_MAX_MS: "60000",
      // One at once all through a yield, whatever it settles.
      WF_EXEC_YIELD_DRAIN_SHARE: "0",
    }),
  );
});
afterAll(async () => {
  await rt?.stop();
  await server?.stop();
});

const PAUSE = `
name: pause
steps:
  - name: pause
    type: wait
    seconds: 0.2
`;

/** Two seconds in hand: a wait under WF_HOLD_WAIT_MS stays in memory. */
const HOLD = `
name: hold
steps:
  - name: hold
    type: wait
    seconds: 2
`;

/** An owner whose starts go to another lane than the flood's (`run`'s default owner's). */
const QUIET = quietOwner("owner1");

async function gauge(name: string): Promise<number> {
  const metric = executorMetrics.find((m) => (m as { name?: string }).name === name)!;
  return (await metric.get()).values[0]!.value;
}

const concurrencyLimit = () => gauge("wf_executor_concurrency_limit");
const edgeP99 = () => gauge("wf_executor_edge_trigger_p99_seconds");

/**
 * 30 starts a second of 0.2 s executions (four at once run 20 a second, so the queue grows) while `body` runs, an
 * edge reporting on `<ns>.edge.latency` ten times a second that it answers triggers at `edgeP99Ms`; resolves the
 * executions started.
 */
async function flood(edgeP99Ms: number, body: () => Promise<void>): Promise<string[]> {
  const started: string[] = [];
  let triggering = true;
  const subject = subjects(rt.ns).edgeLatency;
  const reports = setInterval(
    () => rt.platform.nc.publish(subject, JSON.stringify({ edge: "test-edge", p99Ms: edgeP99Ms, triggers: 3 })),
    100,
  );
  const triggers = (async () => {
    while (triggering) {
      started.push(await run(rt.platform, PAUSE));
      await new Promise((resolve) => setTimeout(resolve, 33));
    }
  })();
  try {
    await body();
  } finally {
    triggering = false;
    clearInterval(reports);
    await triggers;
  }
  return started;
}

describe("the executor's yield to triggers", () => {
  it("holds one execution at a time while its work queue grows faster than it runs them and an edge is slow, and four again once the queue stops growing", async () => {
    const jsm = await jetstreamManager(rt.platform.nc);
    // The executions it holds are the starts in hand, over every start lane's consumer. (The other
    // commands' consumer takes the durable timers of these held waits, each acknowledged at once.)
    const durables = Array.from({ length: START_LANES }, (_, lane) => consumerNames().executorLane(lane));
    const inHand = async () => {
      const infos = await Promise.all(durables.map((d) => jsm.consumers.info(streamNames(rt.ns).cmd, d)));
      return infos.reduce((sum, info) => sum + info.num_ack_pending, 0);
    };
    expect(await concurrencyLimit()).toBe(4);

    const started = await flood(80, async () => {
      await waitFor(async () => (await concurrencyLimit()) === 1, { timeoutMs: 10_000, what: "the executor to yield" });
      expect(await edgeP99()).toBe(0.08);
      await waitFor(async () => (await inHand()) <= 1, {
        timeoutMs: 5_000,
        what: "the executions in hand before the yield to end",
      });
      const seen: number[] = [];
      for (let i = 0; i < 10 && (await concurrencyLimit()) === 1; i++) {
        seen.push(await inHand());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(seen.length).toBeGreaterThan(0);
      expect(Math.max(...seen)).toBeLessThanOrEqual(1);
    });
    await waitFor(async () => (await concurrencyLimit()) === 4, {
      timeoutMs: 10_000,
      what: "the executor to take four at once again",
    });
    for (const id of started)
      expect((await waitForStatus(rt.platform, id, ["COMPLETED"], 60_000)).status).toBe("COMPLETED");
  }, 120_000);

  it("takes four at once all through the same flood while every edge answers its triggers fast", async () => {
    const jsm = await jetstreamManager(rt.platform.nc);
    const waiting = async () => (await jsm.streams.info(streamNames(rt.ns).cmd)).state.messages;
    const limits: number[] = [];
    const started = await flood(5, async () => {
      // The queue grows well past what a yield starts at (5 a second over half a second), for two seconds.
      await waitFor(async () => (await waiting()) >= 20, { timeoutMs: 10_000, what: "the work queue to grow" });
      for (let i = 0; i < 20; i++) {
        limits.push(await concurrencyLimit());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await waiting()).toBeGreaterThanOrEqual(20);
      expect(await edgeP99()).toBe(0.005);
    });
    expect(new Set(limits)).toEqual(new Set([4]));
    // The edge is silent: 1.5 s after its last report the executor hears none.
    await waitFor(async () => (await edgeP99()) === 0, { timeoutMs: 5_000, what: "the edge to be silent" });
    for (const id of started)
      expect((await waitForStatus(rt.platform, id, ["COMPLETED"], 60_000)).status).toBe("COMPLETED");
  }, 120_000);

  it("holds only the flooding owner's starts to the yield: a quiet owner's two run at once beside them", async () => {
    const jsm = await jetstreamManager(rt.platform.nc);
    const quietLane = consumerNames().executorLane(ownerLane(QUIET));
    const quietInHand = async () => (await jsm.consumers.info(streamNames(rt.ns).cmd, quietLane)).num_ack_pending;
    let quiet: string[] = [];
    const started = await flood(80, async () => {
      await waitFor(async () => (await concurrencyLimit()) === 1, { timeoutMs: 10_000, what: "the executor to yield" });
      quiet = await Promise.all([1, 2].map(() => run(rt.platform, HOLD, { ownerId: QUIET })));
      // Held to the yield, they would run one after the other, each waiting for a slot the flood's executions free.
      await waitFor(async () => (await quietInHand()) === 2 && (await concurrencyLimit()) === 1, {
        timeoutMs: 5_000,
        what: "both of the quiet owner's executions in hand while the executor yields",
      });
    });
    for (const id of [...quiet, ...started])
      expect((await waitForStatus(rt.platform, id, ["COMPLETED"], 60_000)).status).toBe("COMPLETED");
  }, 120_000);
});
