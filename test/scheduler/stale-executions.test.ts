import { startExecution } from "@wf/shared/client";
import { ExecutionSnapshot, newId } from "@wf/shared/execution";
import { openPlatform } from "@wf/shared/runtime";
import type { NatsServerHandle } from "@wf/testing";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { startStaleRepair, STALE_AFTER_MS } from "../../services/scheduler/src/stale-executions";
import { startNatsServer, testConfig } from "../support/runtime";

let server: NatsServerHandle;

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

describe("stale execution repair", () => {
  it("undoes a failed start nobody withdrew once it is stale, and keeps one whose command waits for an executor", async () => {
    const p = await openPlatform(testConfig(server), "stale-repair-test");
    onTestFinished(() => p.close());
    const ownerId = `owner-${newId()}`;
    const now = Date.now();
    // Listed, but its start command never stored: a start whose publish and withdrawal both failed.
    const abandoned = ExecutionSnapshot.parse({
      id: newId(),
      workflowId: "wf-a",
      workflowName: "lost",
      ownerId,
      triggerSource: "webhook",
      status: "PENDING",
      totalSteps: 1,
      createdAt: now,
      vars: {},
      definition: { steps: [] },
    });
    await p.store.executions.announce(abandoned);
    const definition = { name: "queued", steps: [{ name: "a", type: "transform", output: "1" }] };
    const queuedId = await startExecution(
      p.js,
      p.config.WF_NAMESPACE,
      { workflow: { id: "wf-q", name: "queued", ownerId, version: 1, definition }, triggerSource: "webhook" },
      { store: p.store },
    );
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
});
