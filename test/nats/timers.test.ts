import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { serverHasSchedules, streamNames } from "@wf/shared/nats";
import { startNatsServer, startRuntime, testConfig, waitFor, type InProcessRuntime } from "../support/runtime";
import type { NatsServerHandle } from "@wf/testing";

/**
 * Durable timers on the server under test (NATS_SERVER_BIN): message schedules from 2.12 on,
 * redelivery until due before. Either way a timer fires its command once, never before it is due.
 */
let server: NatsServerHandle;
let rt: InProcessRuntime;

beforeAll(async () => {
  server = await startNatsServer();
  rt = await startRuntime(testConfig(server), { executor: false, approvals: false });
});
afterAll(async () => {
  await rt?.stop();
  await server?.stop();
});

describe("timers", () => {
  it("use message schedules exactly when the server has them", () => {
    expect(rt.platform.timers.mode).toBe(serverHasSchedules(server.version) ? "schedules" : "nak");
  });

  it("fire each command once, at or after its due time, near and far ones alike", async () => {
    const subject = `${rt.ns}.testtimer`;
    const arrivals = new Map<string, number[]>();
    const sub = rt.platform.nc.subscribe(`${subject}.>`, {
      callback: (_err, msg) => {
        arrivals.set(msg.subject, [...(arrivals.get(msg.subject) ?? []), Date.now()]);
      },
    });
    // Fired commands go to a stream, as every command does; the test reads them off the subject.
    await rt.platform.jsm.streams.add({ name: `${rt.ns}_TESTTIMER`, subjects: [`${subject}.>`] });
    const now = Date.now();
    const due = [now + 300, now + 2_500, now + 3_500, now + 4_200];
    await Promise.all(
      due.map((dueAt, i) =>
        rt.platform.timers.schedule({
          kind: "test",
          id: `t${i}-${newId()}`,
          lane: i,
          dueAt,
          fire: { subject: `${subject}.${i}`, payload: { i }, msgId: `testtimer:${rt.ns}:${i}` },
        }),
      ),
    );
    await waitFor(() => arrivals.size === due.length, { timeoutMs: 20_000, what: "every timer to fire" });
    // A duplicate would come right behind its first firing.
    await new Promise((r) => setTimeout(r, 500));
    sub.unsubscribe();
    due.forEach((dueAt, i) => {
      const times = arrivals.get(`${subject}.${i}`) ?? [];
      expect({ i, fired: times.length }).toEqual({ i, fired: 1 });
      expect(times[0]!).toBeGreaterThanOrEqual(dueAt);
    });
    if (rt.platform.timers.mode === "schedules") {
      // The schedules fired and were removed: the TIMER stream keeps none of them.
      await waitFor(async () => (await rt.platform.jsm.streams.info(streamNames(rt.ns).timer)).state.messages === 0, {
        what: "the TIMER stream to be empty",
      });
    }
  }, 30_000);
});
