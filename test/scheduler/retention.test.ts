import { ArtifactFiles } from "@wf/shared/artifacts";
import { ExecutionSnapshot, newId, type ExecutionStatus } from "@wf/shared/execution";
import { streamNames, subjects, toToken } from "@wf/shared/nats";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import type { ApprovalRecord } from "@wf/shared/store";
import { describe, expect, it, onTestFinished } from "vitest";
import { startRetention } from "@wf/scheduler";
import { startRuntime, testConfig, waitFor } from "../support/runtime";
import { createOwner, startStored, storeWorkflow } from "./support";
import { useNatsServer } from "@wf/testing/nats-connection";

const nats = useNatsServer();

const HOUR = 3_600_000;

async function platform(env: Record<string, string>): Promise<Platform> {
  const p = await openPlatform(testConfig(nats.server, env), "retention-test");
  onTestFinished(() => p.close());
  return p;
}

function execution(ownerId: string, status: ExecutionStatus, createdAt: number): ExecutionSnapshot {
  return ExecutionSnapshot.parse({
    id: newId(),
    workflowId: `wf-${newId()}`,
    workflowName: "old",
    ownerId,
    triggerSource: "webhook",
    status,
    totalSteps: 1,
    createdAt,
    vars: {},
    definition: {},
  });
}

function approvalOf(e: ExecutionSnapshot): ApprovalRecord {
  return {
    id: newId(),
    executionId: e.id,
    workflowId: e.workflowId,
    ownerId: e.ownerId,
    stepName: "gate",
    status: "APPROVED",
    approvalMessage: "ok?",
    timeout: 60,
    createdAt: e.createdAt,
    expiresAt: e.createdAt + 60_000,
    reviewableGroups: [],
    decidedAt: e.createdAt + 1,
    decidedBy: e.ownerId,
    comment: null,
    editedItems: null,
    stepTest: false,
  };
}

describe("execution retention", () => {
  it("removes finished executions older than the retention, with their approvals, artifacts and events, and nothing else", async () => {
    const p = await platform({ WF_EXECUTION_RETENTION: "1h" });
    const ownerId = `owner-${newId()}`;
    const now = Date.now();
    const files = await ArtifactFiles.open(p.nc, p.config.WF_NAMESPACE, p.placement, p.store);
    const subj = subjects(p.config.WF_NAMESPACE);
    const evt = streamNames(p.config.WF_NAMESPACE).evt;

    const kept: ExecutionSnapshot[] = [
      // Unfinished, however old; finished but younger than the retention.
      execution(ownerId, "RUNNING", now - 5 * HOUR),
      execution(ownerId, "AWAITING_APPROVAL", now - 5 * HOUR),
      execution(ownerId, "COMPLETED", now - HOUR / 2),
    ];
    const removed: ExecutionSnapshot[] = (["COMPLETED", "FAILED", "CANCELLED", "INTERRUPTED"] as const).map(
      (status, i) => execution(ownerId, status, now - 2 * HOUR - i),
    );
    const everything = [...kept, ...removed];
    for (const e of everything) {
      await p.store.executions.create(e);
      await p.store.approvals.create(approvalOf(e));
      await files.save({ executionId: e.id, ownerId, stepName: "make" }, [
        { path: "out/report.txt", content: new TextEncoder().encode(`report of ${e.id}`) },
      ]);
      await p.js.publish(subj.event(toToken(ownerId), toToken(e.workflowId), e.id, "exec_completed"), "{}");
    }
    const eventsOf = async (e: ExecutionSnapshot) => {
      const filter = subj.eventFilter({
        ownerId: toToken(ownerId),
        workflowId: toToken(e.workflowId),
        executionId: e.id,
      });
      return Object.keys((await p.jsm.streams.info(evt, { subjects_filter: filter })).state.subjects ?? {}).length;
    };
    const storageKeys = new Map<string, string>();
    for (const e of everything) storageKeys.set(e.id, (await p.store.artifacts.listByExecution(e.id))[0]!.storageKey);

    expect(await Promise.all(everything.map(eventsOf))).toEqual(everything.map(() => 1));

    const retention = startRetention(p, p.log);
    onTestFinished(() => retention.stop());
    expect(await retention.sweep(now)).toBe(removed.length);

    for (const e of removed) {
      expect(await p.store.executions.get(e.id), e.status).toBeNull();
      expect(await p.store.approvals.listByExecution(e.id)).toEqual([]);
      expect(await p.store.artifacts.listByExecution(e.id)).toEqual([]);
      expect(await files.read(storageKeys.get(e.id)!)).toBeNull();
      expect(await eventsOf(e)).toBe(0);
    }
    for (const e of kept) {
      expect((await p.store.executions.get(e.id))?.value.status).toBe(e.status);
      expect(await p.store.approvals.listByExecution(e.id)).toHaveLength(1);
      expect(await files.read(storageKeys.get(e.id)!)).not.toBeNull();
      expect(await eventsOf(e)).toBe(1);
    }
    const listed = await p.store.executions.list({ ownerId, page: 1, size: 50 });
    expect({ total: listed.total, ids: listed.items.map((e) => e.id).sort() }).toEqual({
      total: kept.length,
      ids: kept.map((e) => e.id).sort(),
    });
    expect((await p.store.executions.list({ ownerId, status: "COMPLETED", page: 1, size: 50 })).total).toBe(1);
    // A second pass finds nothing more to do.
    expect(await retention.sweep(now)).toBe(0);
  });

  it("removes more than one batch in a pass, and none at all when retention is off", async () => {
    const off = await platform({ WF_EXECUTION_RETENTION: "off" });
    const ownerId = `owner-${newId()}`;
    const old = Array.from({ length: 1_200 }, (_, i) => execution(ownerId, "COMPLETED", Date.now() - 3 * HOUR - i));
    for (let i = 0; i < old.length; i += 100)
      await Promise.all(old.slice(i, i + 100).map((e) => off.store.executions.create(e)));
    const none = startRetention(off, off.log);
    onTestFinished(() => none.stop());
    expect(await none.sweep()).toBe(0);
    expect((await off.store.executions.list({ ownerId, page: 1, size: 1 })).total).toBe(old.length);

    const on = await platform({ WF_EXECUTION_RETENTION: "2h", WF_NAMESPACE: off.config.WF_NAMESPACE });
    const retention = startRetention(on, on.log);
    onTestFinished(() => retention.stop());
    expect(await retention.sweep()).toBe(old.length);
    expect(await on.store.executions.list({ ownerId, page: 1, size: 1 })).toEqual({ items: [], total: 0 });
  });

  it("the scheduler sweeps on its own, every WF_RETENTION_SWEEP_MS", async () => {
    const rt = await startRuntime(
      testConfig(nats.server, { WF_EXECUTION_RETENTION: "1s", WF_RETENTION_SWEEP_MS: "1000" }),
    );
    onTestFinished(() => rt.stop());
    const p = rt.platform;
    const owner = await createOwner(p, "pro");
    const w = await storeWorkflow(
      p,
      owner.id,
      "name: brief\nsteps:\n  - { name: only, type: transform, output: done }\n",
    );
    const id = await startStored(p, w);
    await waitFor(async () => (await p.store.executions.get(id))?.value.status === "COMPLETED" || undefined, {
      what: "the run to complete",
    });
    await waitFor(async () => (await p.store.executions.get(id)) === null || undefined, {
      timeoutMs: 10_000,
      what: "the scheduler to remove the run",
    });
    expect(await p.store.executions.list({ ownerId: owner.id, page: 1, size: 10 })).toEqual({ items: [], total: 0 });
  });
});
