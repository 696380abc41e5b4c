import { startExecution } from "@wf/shared/client";
import { ExecutionSnapshot, newId } from "@wf/shared/execution";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import { describe, expect, it, onTestFinished } from "vitest";
import { startStaleRepair, STALE_AFTER_MS } from "@wf/scheduler";
import { testConfig } from "../support/runtime";
import { useNatsServer } from "@wf/testing/nats-connection";

const nats = useNatsServer();

/** A start whose publish and withdrawal both failed: listed, its start command never stored. */
function abandonedStart(ownerId: string, createdAt: number): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: newId(),
    workflowId: "wf-a",
    workflowName: "lost",
    ownerId,
    triggerSource: "webhook",
    status: "PENDING",
    totalSteps: 1,
    createdAt,
    vars: {},
    definition: { steps: [] },
  });
}

/** A start announced and queued for an executor that never comes (none runs in these tests). */
async function queuedStart(p: Platform, ownerId: string): Promise<string> {
  const definition = { name: "queued", steps: [{ name: "a", type: "transform", output: "1" }] };
  return startExecution(
    p.js,
    p.config.WF_NAMESPACE,
    { workflow: { id: "wf-q", name: "queued", ownerId, version: 1, definition }, triggerSource: "webhook" },
    { store: p.store },
  );
}

describe("stale execution repair", () => {
  it("undoes a failed start nobody withdrew once it is stale, and keeps one whose command waits for an executor", async () => {
    const p = await openPlatform(testConfig(nats.server), "stale-repair-test");
    onTestFinished(() => p.close());
    const ownerId = `owner-${newId()}`;
    // A millisecond back: the queued start, made after, is then the newer one. Made in the same millisecond, the two
    // sort by their ids, and a page of one showing the abandoned one (no record to show) leaves it out of the total.
    const now = Date.now() - 1;
    const abandoned = abandonedStart(ownerId, now);
    await p.store.executions.announce(abandoned);
    const queuedId = await queuedStart(p, ownerId);
    // Pages of one: an entry no page shows is still counted in the total.
    const list = () => p.store.executions.list({ ownerId, page: 1, size: 1 });

    const repair = startStaleRepair(p, p.log);
    onTestFinished(() => repair.stop());
    expect(await repair.sweep(now + STALE_AFTER_MS)).toBe(0);
    expect((await list()).total).toBe(2);

    expect(await repair.sweep(now + STALE_AFTER_MS + 60_000)).toBe(1);
    const page = await list();
    expect({ total: page.total, ids: page.items.map((e) => e.id) }).toEqual({ total: 1, ids: [queuedId] });
    expect(await p.store.executions.get(abandoned.id)).toBeNull();
  });

  it("goes on where the last pass stopped, so that executions left unfinished for long do not hide the stale ones after them", async () => {
    const p = await openPlatform(testConfig(nats.server), "stale-repair-test");
    onTestFinished(() => p.close());
    const ownerId = `owner-${newId()}`;
    // The two oldest wait for an executor, for as long as it takes: every pass checks them again, and never changes
    // them.
    const queued = [await queuedStart(p, ownerId), await queuedStart(p, ownerId)];
    const created = (await p.store.executions.get(queued[1]!))!.value.createdAt;
    const abandoned = [1, 2, 3].map((i) => abandonedStart(ownerId, created + i));
    for (const a of abandoned) await p.store.executions.announce(a);
    // Pages of one: the newest, abandoned, is left off its page, and the two others are counted in its total.
    const total = async () => (await p.store.executions.list({ ownerId, page: 1, size: 1 })).total;
    expect(await total()).toBe(4);

    // Two checked per pass: the queued two, the first two abandoned, the last one, then the queued two again.
    const repair = startStaleRepair(p, p.log, 2);
    onTestFinished(() => repair.stop());
    const at = created + STALE_AFTER_MS + 60_000;
    expect([await repair.sweep(at), await repair.sweep(at), await repair.sweep(at), await repair.sweep(at)]).toEqual([
      0, 2, 1, 0,
    ]);
    expect(await total()).toBe(2);
    for (const id of queued) expect((await p.store.executions.get(id))?.value.status).toBe("PENDING");
  });
});
