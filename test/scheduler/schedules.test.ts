import { newId } from "@wf/shared/execution";
import { streamNames } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import type { WorkflowRecord } from "@wf/shared/store";
import { scheduleExecutionId, StartBudget } from "@wf/scheduler";
import { describe, expect, it, onTestFinished } from "vitest";
import { ENTRIES, startServiceProcess, type ServiceProcess } from "../support/processes";
import {
  definitionOf,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import { createOwner, executionsOf, storeWorkflow } from "./support";
import { minuteWithRoom } from "@wf/testing";
import { useNatsServer } from "@wf/testing/nats-connection";

/** Cron schedules, against a real nats-server, the real executor and scheduler processes. */
const nats = useNatsServer();

/** The executor in this process; schedulers run as their own processes. */
async function executorOnly(): Promise<InProcessRuntime> {
  const rt = await startRuntime(testConfig(nats.server), { scheduler: false });
  onTestFinished(() => rt.stop());
  return rt;
}

async function schedulerProcess(ns: string): Promise<ServiceProcess> {
  const proc = await startServiceProcess(
    ENTRIES.scheduler,
    { NATS_URL: nats.server.url, WF_NAMESPACE: ns, WF_SCHEDULE_SCAN_MS: "200" },
    ["scheduler ready"],
  );
  onTestFinished(() => proc.kill());
  return proc;
}

const scheduled = (name: string, cron: string) => `
name: ${name}
triggers:
  - { type: schedule, cron: "${cron}", timezone: Europe/Berlin }
steps:
  - { name: only, type: transform, output: "{{ execution.id }}" }
`;

/** The tick each execution of `w` ran for (its id is derived from it), from `from` on; undefined when none matches. */
function tickOf(w: WorkflowRecord, id: string, from: number, to: number): number | undefined {
  for (let tick = Math.floor(from / 1_000) * 1_000; tick <= to; tick += 1_000) {
    if (scheduleExecutionId(w, tick) === id) return tick;
  }
  return undefined;
}

/** Replaces a stored workflow's YAML, as `wf workflow import` of a new version does. */
async function edit(p: Platform, w: WorkflowRecord, yaml: string): Promise<void> {
  const current = (await p.store.workflows.get(w.id))!;
  const next = {
    ...current.value,
    yaml,
    definition: definitionOf(yaml),
    version: current.value.version + 1,
    updatedAt: Date.now(),
  };
  await p.store.workflows.update(next, current.version);
}

/**
 * The ticks of `w` from `from` until now whose execution exists, read by their derived ids: a
 * KV key scan (the list) does not end while per-second writes keep arriving.
 */
async function ticksFired(p: Platform, w: WorkflowRecord, from: number): Promise<number[]> {
  const ticks: number[] = [];
  for (let tick = Math.floor(from / 1_000) * 1_000; tick <= Date.now(); tick += 1_000) ticks.push(tick);
  const found = await Promise.all(ticks.map((tick) => p.store.executions.get(scheduleExecutionId(w, tick))));
  return ticks.filter((_, i) => found[i] !== null);
}

async function armedTick(p: Platform, w: WorkflowRecord): Promise<number | undefined> {
  return (await p.store.schedules.get(w.id))?.value.nextAt;
}

describe("schedules", () => {
  it("two scheduler replicas fire each tick of a per-second cron once; a Free owner's schedule never fires", async () => {
    const rt = await executorOnly();
    const p = rt.platform;
    const pro = await createOwner(p, "pro");
    const free = await createOwner(p, "free");
    const since = Date.now();
    const paid = await storeWorkflow(p, pro.id, scheduled("every-second", "* * * * * *"));
    const unpaid = await storeWorkflow(p, free.id, scheduled("every-second-free", "* * * * * *"));
    const replicas = await Promise.all([schedulerProcess(rt.ns), schedulerProcess(rt.ns)]);

    await waitFor(async () => (await ticksFired(p, paid, since)).length >= 6, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: "six ticks",
    });
    await Promise.all(replicas.map((r) => r.kill()));
    const killedAt = Date.now();

    const runs = await executionsOf(p, paid);
    const ticks = runs.map((e) => tickOf(paid, e.id, since, killedAt));
    expect(ticks.every((t) => t !== undefined)).toBe(true);
    const sorted = (ticks as number[]).sort((x, y) => x - y);
    // One execution per tick, and no tick skipped between the first and the last.
    expect(sorted.length).toBeGreaterThanOrEqual(6);
    expect(sorted).toEqual(sorted.map((_, i) => sorted[0]! + i * 1_000));
    expect(runs.every((e) => e.triggerSource === "schedule")).toBe(true);
    // A run whose tick a replica was handling when it was killed waits for that tick's redelivery;
    // every earlier one ran.
    for (const e of runs.filter((r) => r.createdAt < killedAt - 2_000))
      expect((await waitForStatus(p, e.id)).status).toBe("COMPLETED");
    expect(await executionsOf(p, unpaid)).toEqual([]);
    expect(await p.store.schedules.get(unpaid.id)).toBeNull();
  });

  it("a tick that falls due while the only scheduler is down fires once it is back", async () => {
    const rt = await executorOnly();
    const p = rt.platform;
    const owner = await createOwner(p, "team");
    const w = await storeWorkflow(p, owner.id, scheduled("every-five-seconds", "*/5 * * * * *"));
    const first = await schedulerProcess(rt.ns);
    // Kill it with more than a second to go before the armed tick, then wait for that tick to pass.
    const due = await waitFor(
      async () => {
        const at = await armedTick(p, w);
        return at !== undefined && at - Date.now() > 1_000 ? at : undefined;
      },
      { timeoutMs: 15_000, what: "a tick armed more than a second ahead" },
    );
    await first.kill();
    await waitFor(() => Date.now() > due + 200, { timeoutMs: 10_000, what: "the armed tick to pass" });
    expect(await p.store.executions.get(scheduleExecutionId(w, due))).toBeNull();

    await schedulerProcess(rt.ns);
    // Late by the restart, or by the timer consumer's AckWait when the kill lost a delivery.
    const missed = await waitForStatus(p, scheduleExecutionId(w, due), ["COMPLETED"], 30_000);
    expect(missed).toMatchObject({ triggerSource: "schedule", output: missed.id });
    // The schedule carries on from there.
    await waitForStatus(p, scheduleExecutionId(w, due + 5_000), ["COMPLETED"]);
  });

  it("picks up a schedule added by an edit, and stops when an edit removes it", async () => {
    const rt = await startRuntime(testConfig(nats.server, { WF_SCHEDULE_SCAN_MS: "200" }));
    onTestFinished(() => rt.stop());
    const p = rt.platform;
    const owner = await createOwner(p, "enterprise");
    const withSchedule = scheduled("edited", "* * * * * *");
    const w = await storeWorkflow(p, owner.id, withSchedule.replace(/triggers:\n.*\n/, ""));

    const since = Date.now();
    await edit(p, w, withSchedule);
    await waitFor(async () => (await ticksFired(p, w, since)).length >= 2, {
      timeoutMs: 20_000,
      intervalMs: 200,
      what: "the added schedule to fire",
    });

    await edit(p, w, withSchedule.replace(/triggers:\n.*\n/, ""));
    // The tick armed last finds no schedule: it starts nothing, arms nothing, forgets the record.
    await waitFor(
      async () =>
        (await p.store.schedules.get(w.id)) === null &&
        (await p.jsm.streams.info(streamNames(rt.ns).timer)).state.messages === 0,
      {
        timeoutMs: 10_000,
        what: "the schedule to be disarmed",
      },
    );
    expect(await p.store.workflows.listScheduled()).toEqual([]);
  });

  it("a tick past its owner's budget of triggered starts starts nothing, and the schedule goes on from the next minute", async () => {
    const rt = await startRuntime(testConfig(nats.server, { WF_SCHEDULE_SCAN_MS: "200" }));
    onTestFinished(() => rt.stop());
    const p = rt.platform;
    const owner = await createOwner(p, "pro");
    // The budget is a minute's: the test must not straddle two.
    await minuteWithRoom(20_000);
    const minute = Math.floor(Date.now() / 60_000);
    // The Pro plan's 300 triggered starts of this minute, spent as another replica would spend them.
    const budget = await StartBudget.open(p, p.log);
    onTestFinished(() => budget.close());
    const spent = { workflowId: "elsewhere", trigger: "chained" };
    expect((await Promise.all(Array.from({ length: 300 }, () => budget.allows(owner, newId(), spent)))).every(Boolean));

    const since = Date.now();
    const w = await storeWorkflow(p, owner.id, scheduled("every-second", "* * * * * *"));
    // The first tick is refused; the ticks left in this minute would be too, and are not made.
    const nextMinute = (minute + 1) * 60_000;
    await waitFor(async () => ((await armedTick(p, w)) ?? 0) >= nextMinute || undefined, {
      timeoutMs: 15_000,
      what: "the schedule to be armed in the next minute",
    });
    expect(Math.floor(Date.now() / 60_000)).toBe(minute);
    expect(await armedTick(p, w)).toBe(nextMinute);
    expect(await ticksFired(p, w, since)).toEqual([]);
  });
});
