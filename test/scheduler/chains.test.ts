import { newId } from "@wf/shared/execution";
import { startExecution } from "@wf/shared/client";
import { consumerNames, streamNames, subjects } from "@wf/shared/nats";
import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { WorkflowRecord } from "@wf/shared/store";
import type { Platform } from "@wf/shared/runtime";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { ENTRIES, startServiceProcess, type ServiceProcess } from "../support/processes";
import { startRuntime, testConfig, waitFor, waitForStatus, type InProcessRuntime } from "../support/runtime";
import { createOwner, executionsOf, settled, startStored, storeWorkflow } from "./support";
import { minuteWithRoom } from "@wf/testing";
import { useNatsServer } from "@wf/testing/nats-connection";

/** Chained triggers (DELAYED_COMPLETION), against a real nats-server and the real executor. */
const nats = useNatsServer();

async function runtime(
  env: Record<string, string> = {},
  parts: { executor?: boolean; scheduler?: boolean } = {},
): Promise<InProcessRuntime> {
  const rt = await startRuntime(testConfig(nats.server, { WF_SCHEDULE_SCAN_MS: "200", ...env }), parts);
  onTestFinished(() => rt.stop());
  return rt;
}

const quick = (name: string, triggers = "") => `
name: ${name}
${triggers}
steps:
  - { name: only, type: transform, output: "${name} done" }
`;

const chainedAfter = (after: string, extra = "") => `triggers:
  - { type: DELAYED_COMPLETION, after: ${after}, delay: 0${extra} }`;

/** The one execution the chain started of `w`, once it completed. */
function chainedRun(p: Platform, w: WorkflowRecord, timeoutMs = 20_000): Promise<ExecutionSnapshot> {
  return waitFor(
    async () => {
      const [run] = await executionsOf(p, w);
      return run?.status === "COMPLETED" ? run : undefined;
    },
    { timeoutMs, what: `a chained run of ${w.name} to complete` },
  );
}

describe("chained triggers", () => {
  it("start a workflow `delay` seconds after the one it follows ends in a listed state; not on other states, nor for other owners", async () => {
    const rt = await runtime();
    const p = rt.platform;
    const owner = await createOwner(p, "free");
    const a = await storeWorkflow(p, owner.id, quick("a"));
    const b = await storeWorkflow(p, owner.id, quick("b", chainedAfter(a.id).replace("delay: 0", "delay: 1.5")));
    const onFailure = await storeWorkflow(p, owner.id, quick("c", chainedAfter(a.id, ", on: [FAILED, CANCELLED]")));
    // Another tenant cannot follow a workflow it does not see.
    const stranger = await createOwner(p, "pro");
    const follower = await storeWorkflow(p, stranger.id, quick("d", chainedAfter(a.id)));

    const first = await waitForStatus(p, await startStored(p, a));
    expect(first.status).toBe("COMPLETED");
    const second = await chainedRun(p, b);
    expect(second).toMatchObject({ workflowId: b.id, triggerSource: "chained", output: "b done" });
    // The delay runs from the end that the event records, which is at or after completedAt.
    expect(second.createdAt).toBeGreaterThanOrEqual(first.completedAt! + 1_500);

    await waitFor(() => settled(p, [owner, stranger]), { timeoutMs: 20_000, what: "the chain to come to rest" });
    expect(await executionsOf(p, onFailure)).toEqual([]);
    expect(await executionsOf(p, follower)).toEqual([]);
    expect((await executionsOf(p, b)).map((e) => e.id)).toEqual([second.id]);
    expect((await p.store.chainRuns.get(`${b.id}:${a.id}:0`))?.value.runs).toBe(1);
  });

  it("max_runs caps how often a chain fires, each end counted once though every message is handled twice", async () => {
    // The executor as usual; the scheduler handles each of its messages twice (WF_REDELIVER_ONCE).
    const rt = await runtime({}, { scheduler: false });
    const twice = await runtime({ WF_NAMESPACE: rt.ns, WF_REDELIVER_ONCE: "1" }, { executor: false });
    const p = rt.platform;
    const owner = await createOwner(p, "pro");
    const a = await storeWorkflow(p, owner.id, quick("a"));
    const b = await storeWorkflow(p, owner.id, quick("b", chainedAfter(a.id, ", max_runs: 2")));

    for (let i = 0; i < 3; i++) await waitForStatus(p, await startStored(p, a));
    await waitFor(() => settled(twice.platform, [owner]), { timeoutMs: 30_000, what: "the chain to come to rest" });

    const runs = await executionsOf(p, b);
    expect(runs).toHaveLength(2);
    expect(runs.every((e) => e.triggerSource === "chained" && e.status === "COMPLETED")).toBe(true);
    expect((await p.store.chainRuns.get(`${b.id}:${a.id}:0`))?.value.runs).toBe(2);
  });

  it("a chain the owner may no longer start (the account deactivated before the run) is skipped, and the log says why", async () => {
    const rt = await runtime({ LOG_LEVEL: "warn" });
    const p = rt.platform;
    const owner = await createOwner(p, "pro");
    const a = await storeWorkflow(p, owner.id, quick("a"));
    const b = await storeWorkflow(p, owner.id, quick("b", chainedAfter(a.id)));
    const stderr = vi.spyOn(process.stderr, "write");
    onTestFinished(() => stderr.mockRestore());

    const sourceId = await startStored(p, a);
    await p.store.users.update({ ...owner, status: "deactivated" }, (await p.store.users.get(owner.id))!.version);
    expect((await waitForStatus(p, sourceId)).status).toBe("COMPLETED");
    const line = await waitFor(
      () =>
        stderr.mock.calls
          .map(([chunk]) => String(chunk))
          .find((l) => l.includes("chained run skipped") && l.includes(b.id)),
      {
        timeoutMs: 20_000,
        what: "the skipped chain's log line",
      },
    );
    expect(JSON.parse(line)).toMatchObject({
      level: "warn",
      workflowId: b.id,
      sourceExecutionId: sourceId,
      reason: `forbidden: starting workflow ${b.id} needs an active account, and user ${owner.id}'s is deactivated`,
    });
    await waitFor(() => settled(p, [owner]), { timeoutMs: 20_000, what: "the chain to come to rest" });
    expect(await executionsOf(p, b)).toEqual([]);
  });

  it("a loop A → B → A stops when the caps are reached", async () => {
    const rt = await runtime();
    const p = rt.platform;
    const owner = await createOwner(p, "pro");
    const [aId, bId] = [newId(), newId()];
    const a = await storeWorkflow(p, owner.id, quick("a", chainedAfter(bId, ", max_runs: 2")), aId);
    const b = await storeWorkflow(p, owner.id, quick("b", chainedAfter(aId, ", max_runs: 2")), bId);

    await startStored(p, a);
    await waitFor(() => settled(p, [owner]), { timeoutMs: 30_000, what: "the loop to stop" });

    // A once by hand, then A and B twice each by the chain: B after A1, A after B1, B after A2, A after B2.
    const as = await executionsOf(p, a);
    const bs = await executionsOf(p, b);
    expect(as.map((e) => e.triggerSource)).toEqual(["open_api", "chained", "chained"]);
    expect(bs.map((e) => e.triggerSource)).toEqual(["chained", "chained"]);
    expect([...as, ...bs].every((e) => e.status === "COMPLETED")).toBe(true);
  });

  it("a workflow chained three times after itself starts its owner's per-minute limit of runs, then stops", async () => {
    const rt = await runtime({ LOG_LEVEL: "warn" });
    const p = rt.platform;
    const owner = await createOwner(p, "free");
    const id = newId();
    const self = `triggers:
  - { type: DELAYED_COMPLETION, after: ${id}, delay: 0 }
  - { type: DELAYED_COMPLETION, after: ${id}, delay: 0 }
  - { type: DELAYED_COMPLETION, after: ${id}, delay: 0 }`;
    const w = await storeWorkflow(p, owner.id, quick("fan", self), id);
    const stderr = vi.spyOn(process.stderr, "write");
    onTestFinished(() => stderr.mockRestore());
    // The budget is a minute's: the burst (1, 3, 9, 27, 81… runs a generation) must not straddle two.
    await minuteWithRoom(20_000);
    const minute = Math.floor(Date.now() / 60_000);

    await startStored(p, w);
    await waitFor(() => settled(p, [owner]), { timeoutMs: 30_000, what: "the fan-out to stop" });
    expect(Math.floor(Date.now() / 60_000)).toBe(minute);

    // A Free owner's plan allows one key 60 requests a minute: as many chained runs.
    const runs = await executionsOf(p, w);
    expect(runs.filter((e) => e.triggerSource === "chained")).toHaveLength(60);
    expect(runs.every((e) => e.status === "COMPLETED")).toBe(true);
    const skipped = stderr.mock.calls
      .map(([chunk]) => String(chunk))
      .filter((l) => l.includes("triggered runs skipped"));
    expect(skipped.map((l) => JSON.parse(l) as unknown)).toEqual([
      expect.objectContaining({ level: "warn", ownerId: owner.id, plan: "free", perMinute: 60, workflowId: w.id }),
    ]);
  });

  it("a step test of the workflow followed chains nothing; its next run does", async () => {
    const rt = await runtime();
    const p = rt.platform;
    const owner = await createOwner(p, "pro");
    const a = await storeWorkflow(p, owner.id, quick("a"));
    const b = await storeWorkflow(p, owner.id, quick("b", chainedAfter(a.id)));
    const testId = await startExecution(p.js, p.config.WF_NAMESPACE, {
      workflow: { id: a.id, name: a.name, ownerId: a.ownerId, version: a.version, definition: a.definition },
      triggerSource: "step_test",
      stepTest: { step: "only", contextFrom: null },
    });
    expect((await waitForStatus(p, testId)).status).toBe("COMPLETED");
    // The ends are handled in order: once the run's chain has fired, the test's end was passed over.
    const run = await waitForStatus(p, await startStored(p, a));
    const chained = await chainedRun(p, b);
    await waitFor(() => settled(p, [owner]), { timeoutMs: 20_000, what: "the chain to come to rest" });
    expect((await executionsOf(p, b)).map((e) => e.id)).toEqual([chained.id]);
    expect(chained.createdAt).toBeGreaterThanOrEqual(run.completedAt!);
  });

  it("execution ends are consumed only once a workflow has a chained trigger, and from its save on", async () => {
    const rt = await runtime();
    const p = rt.platform;
    const owner = await createOwner(p, "pro");
    const a = await storeWorkflow(p, owner.id, quick("a"));
    const before = await waitForStatus(p, await startStored(p, a));
    expect(before.status).toBe("COMPLETED");
    // Its end event is on the stream before the save (the record is written first: on a loaded machine the event
    // may follow the save, and then it comes after it).
    const endSubject = subjects(rt.ns).event(owner.id, a.id, before.id, "exec_completed");
    await waitFor(
      () => p.jsm.streams.getMessage(streamNames(rt.ns).evt, { last_by_subj: endSubject }).then(Boolean, () => false),
      {
        what: "the first run's end event",
      },
    );
    const endConsumer = () => p.jsm.consumers.info(streamNames(rt.ns).evt, consumerNames().chainEnds("exec_completed"));
    // Nothing chains yet: no end was delivered to anyone, there is no consumer to deliver it to.
    await expect(endConsumer()).rejects.toThrow(/not found/i);

    // Followed at once, likely before the scheduler's next look (every second): chained all the same.
    const b = await storeWorkflow(p, owner.id, quick("b", chainedAfter(a.id)));
    const followed = await waitForStatus(p, await startStored(p, a));
    const run = await chainedRun(p, b);
    expect(run.createdAt).toBeGreaterThanOrEqual(followed.completedAt!);
    await waitFor(() => settled(p, [owner]), { timeoutMs: 20_000, what: "the chain to come to rest" });
    // The end before the save started nothing.
    expect((await executionsOf(p, b)).map((e) => e.id)).toEqual([run.id]);
    expect((await endConsumer()).config.deliver_policy).toBe("by_start_time");
  });

  it("a chain armed before the scheduler is killed fires after it restarts", async () => {
    const rt = await runtime({}, { scheduler: false });
    const p = rt.platform;
    const env = { NATS_URL: nats.server.url, WF_NAMESPACE: rt.ns, WF_SCHEDULE_SCAN_MS: "200" };
    let scheduler: ServiceProcess | null = await startServiceProcess(ENTRIES.scheduler, env, ["scheduler ready"]);
    onTestFinished(() => scheduler?.kill());
    const owner = await createOwner(p, "pro");
    const a = await storeWorkflow(p, owner.id, quick("a"));
    const b: WorkflowRecord = await storeWorkflow(
      p,
      owner.id,
      quick("b", chainedAfter(a.id).replace("delay: 0", "delay: 3")),
    );
    const key = `${b.id}:${a.id}:0`;

    const first = await waitForStatus(p, await startStored(p, a));
    // Counted means armed: the counter is written just before the timer.
    await waitFor(async () => (await p.store.chainRuns.get(key))?.value.recent.includes(first.id), {
      what: "the chain to be armed",
    });
    await scheduler.kill();
    scheduler = await startServiceProcess(ENTRIES.scheduler, env, ["scheduler ready"]);

    const second = await chainedRun(p, b, 30_000);
    expect(second.triggerSource).toBe("chained");
    expect(second.createdAt).toBeGreaterThanOrEqual(first.completedAt! + 3_000);
  });
});
