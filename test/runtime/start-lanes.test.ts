import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { laneOf, ownerLane, ownerLanes, TERMINAL_STATUSES } from "@wf/shared/execution";
import { followLaneBacklog, LANE_MARGIN, LaneBacklog } from "@wf/shared/nats";
import type { NatsServerHandle } from "@wf/testing";
import {
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import { FLOOD, quietOwner, sharingOwner } from "../support/lane-owners";

/** Holds an executor's slot for 0.4 s without CPU: a wait under the hold threshold stays in hand. */
const HOLDING = `
name: holding
steps:
  - name: hold
    type: wait
    seconds: 0.4
`;

/** Holds a slot for 12 s: under this runtime's hold threshold, it stays in hand. */
const LONG_HOLD = HOLDING.replace("seconds: 0.4", "seconds: 12");

const QUICK = `
name: quick
steps:
  - name: one
    type: transform
    output: "{{ 1 }}"
`;

/** Two owners whose starts go to different lanes. */
const QUIET = quietOwner();
/** An owner whose first lane is the flooding owner's, and whose second lane is neither of the flooding owner's. */
const SHARING = sharingOwner();

describe("start lanes", () => {
  let server: NatsServerHandle;
  let rt: InProcessRuntime;

  beforeAll(async () => {
    server = await startNatsServer();
    // Four executions at once: forty starts of 0.4 s make a backlog of about 4 s.
    rt = await startRuntime(
      testConfig(server, { WF_EXEC_CONCURRENCY: "4", WF_EXEC_YIELD_CONCURRENCY: "0", WF_HOLD_WAIT_MS: "30000" }),
    );
  });
  afterAll(async () => {
    await rt?.stop();
    await server?.stop();
  });

  it("puts an execution's start in its owner's lane, named by its id", async () => {
    const id = await run(rt.platform, QUICK, { ownerId: FLOOD });
    expect(laneOf(id)).toBe(ownerLane(FLOOD));
    expect((await waitForStatus(rt.platform, id)).status).toBe("COMPLETED");
  });

  // Judged by order, not by the clock: taken in the order they came, the quiet owner's start
  // would run after the whole backlog (40 of 40 ended first); in turn, beside it.
  it("runs another owner's start beside one owner's backlog, not after it", async () => {
    const flood = await Promise.all(Array.from({ length: 40 }, () => run(rt.platform, HOLDING, { ownerId: FLOOD })));
    const ended = async () => {
      const states = await Promise.all(flood.map((id) => rt.platform.store.executions.get(id)));
      return states.filter((v) => v && TERMINAL_STATUSES.has(v.value.status)).length;
    };
    await waitFor(async () => (await ended()) >= 4, { timeoutMs: 60_000, what: "the backlog's first executions" });
    const before = await ended();
    const quiet = await waitForStatus(
      rt.platform,
      await run(rt.platform, QUICK, { ownerId: QUIET }),
      undefined,
      60_000,
    );
    const after = await ended();
    expect(quiet.status).toBe("COMPLETED");
    console.log(
      `quiet owner's workflow: ${quiet.completedAt! - quiet.startedAt!} ms; ${after - before} of the backlog's executions ended meanwhile`,
    );
    expect(after - before, "the backlog's executions that went first").toBeLessThan(12);
    expect(after, "the backlog was still under way").toBeLessThan(40);
    await waitFor(async () => (await ended()) === 40, { timeoutMs: 60_000, what: "the backlog to drain" });
  });

  // The sharing owner's start is judged on the executors' reports alone: this LaneBacklog sent none of the flood.
  it("starts an owner sharing a flooded first lane in its second lane, beside the backlog", async () => {
    const heard = new LaneBacklog();
    const unfollow = followLaneBacklog(rt.platform.nc, rt.platform.config.WF_NAMESPACE, heard);
    try {
      const flood = await Promise.all(Array.from({ length: 40 }, () => run(rt.platform, HOLDING, { ownerId: FLOOD })));
      expect(new Set(flood.map(laneOf))).toEqual(new Set([ownerLane(FLOOD)]));
      const ended = async () => {
        const states = await Promise.all(flood.map((id) => rt.platform.store.executions.get(id)));
        return states.filter((v) => v && TERMINAL_STATUSES.has(v.value.status)).length;
      };
      await waitFor(() => (heard.busy(ownerLane(FLOOD)) > LANE_MARGIN ? true : undefined), {
        timeoutMs: 10_000,
        what: "an executor to report the flooded lane's backlog",
      });
      const before = await ended();
      const id = await run(rt.platform, QUICK, { ownerId: SHARING, lanes: heard });
      expect(laneOf(id)).toBe(ownerLanes(SHARING)[1]);
      const sharing = await waitForStatus(rt.platform, id, undefined, 60_000);
      const after = await ended();
      expect(sharing.status).toBe("COMPLETED");
      console.log(`sharing owner's workflow: ${after - before} of the backlog's executions ended meanwhile`);
      expect(after - before, "the backlog's executions that went first").toBeLessThan(12);
      expect(after, "the backlog was still under way").toBeLessThan(40);
      await waitFor(async () => (await ended()) === 40, { timeoutMs: 60_000, what: "the backlog to drain" });
    } finally {
      unfollow();
    }
  });

  it("takes another owner's start at once while one owner's executions hold every slot", async () => {
    const holders = await Promise.all(Array.from({ length: 4 }, () => run(rt.platform, LONG_HOLD, { ownerId: FLOOD })));
    const states = () => Promise.all(holders.map(async (id) => (await rt.platform.store.executions.get(id))?.value));
    await waitFor(async () => ((await states()).every((s) => s?.steps.hold?.status === "RUNNING") ? true : undefined), {
      what: "the four executions to hold the four slots",
    });
    // Past the quiet lane's last fetch, made while there was room and good for 5 s (command-consumer.ts): a full
    // house then left that lane nothing to fetch with.
    const held = Math.max(...(await states()).map((s) => s!.steps.hold!.startedAt!));
    await waitFor(() => (Date.now() >= held + 5_500 ? true : undefined), {
      timeoutMs: 10_000,
      what: "the quiet lane's fetch from before to expire",
    });
    const quiet = await waitForStatus(
      rt.platform,
      await run(rt.platform, QUICK, { ownerId: QUIET }),
      undefined,
      60_000,
    );
    expect(quiet.status).toBe("COMPLETED");
    // It did not wait for a slot to free: every holder was still holding its own.
    expect((await states()).map((s) => s?.status)).toEqual(["RUNNING", "RUNNING", "RUNNING", "RUNNING"]);
    await waitFor(async () => ((await states()).every((s) => s?.status === "COMPLETED") ? true : undefined), {
      what: "the holders to end",
    });
  });
});
