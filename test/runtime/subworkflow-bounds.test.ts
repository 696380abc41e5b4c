import { MAX_CALL_DEPTH, type ExecutionSnapshot } from "@wf/shared/execution";
import { PLAN_LIMITS } from "@wf/shared/auth";
import { describe, expect, it, onTestFinished } from "vitest";
import { minuteWithRoom } from "@wf/testing";
import { useNatsServer } from "@wf/testing/nats-connection";
import { startRuntime, testConfig, waitFor, waitForStatus, type InProcessRuntime } from "../support/runtime";
import { createOwner, executionsOf, startStored, storeWorkflow } from "../scheduler/support";

/** What bounds the sub-workflows an owner's executions start, against a real nats-server and the real executor. */
const nats = useNatsServer();

async function runtime(): Promise<InProcessRuntime> {
  const rt = await startRuntime(testConfig(nats.server));
  onTestFinished(() => rt.stop());
  return rt;
}

/** How many of a foreach's item steps named `call` completed, and how many wait for the owner's budget. */
function callsOf(snap: ExecutionSnapshot | undefined) {
  const calls = Object.entries(snap?.steps ?? {}).filter(([path]) => path.endsWith("].call"));
  return {
    completed: calls.filter(([, st]) => st.status === "COMPLETED").length,
    waiting: calls.filter(([, st]) => st.status === "RUNNING" && st.waitUntil !== null).length,
  };
}

describe("sub-workflow starts", () => {
  it("an owner's sub-workflow starts a minute stop at their plan's limit; the others wait for the next minute and then run", async () => {
    const rt = await runtime();
    const p = rt.platform;
    const owner = await createOwner(p, "free");
    const limit = PLAN_LIMITS.free.perMinute;
    const items = limit + 10;
    const leaf = await storeWorkflow(
      p,
      owner.id,
      `
name: leaf
steps: [ { name: a, type: transform, output: 1 } ]
`,
    );
    const fan = await storeWorkflow(
      p,
      owner.id,
      `
name: fan
steps:
  - name: each
    type: foreach
    items: "{{ [1..${items}] }}"
    concurrency: ${items}
    steps:
      - { name: call, type: workflow, workflow: ${leaf.id} }
`,
    );
    // The limit is a minute's: the first starts must not straddle two.
    await minuteWithRoom(20_000);
    const minute = Math.floor(Date.now() / 60_000);
    const id = await startStored(p, fan);

    const parked = await waitFor(
      async () => {
        const snap = (await p.store.executions.get(id))?.value;
        const c = callsOf(snap);
        return c.completed === limit && c.waiting === items - limit ? snap : undefined;
      },
      { timeoutMs: 15_000, what: `${limit} calls completed and ${items - limit} waiting` },
    );
    expect(Math.floor(Date.now() / 60_000)).toBe(minute);
    const waits = Object.values(parked.steps).flatMap((st) => (st.waitUntil === null ? [] : [st.waitUntil]));
    for (const until of waits) expect(Math.floor(until / 60_000)).toBe(minute + 1);
    expect((await executionsOf(p, leaf)).length).toBe(limit);

    // The next minute starts the rest.
    const done = await waitForStatus(p, id, ["COMPLETED", "FAILED"], 80_000);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.output).toEqual(Array.from({ length: items }, () => 1));
    const children = await executionsOf(p, leaf);
    expect(children.length).toBe(items);
    expect(children.filter((c) => c.createdAt >= (minute + 1) * 60_000).length).toBe(items - limit);
  }, 120_000);

  it(`a workflow that calls itself without end fails ${MAX_CALL_DEPTH} calls deep, naming the bound`, async () => {
    const rt = await runtime();
    const p = rt.platform;
    const owner = await createOwner(p, "pro");
    const self = await storeWorkflow(
      p,
      owner.id,
      `
name: forever
steps: [ { name: again, type: workflow, workflow: wf-forever } ]
`,
      "wf-forever",
    );
    const id = await startStored(p, self);
    const root = await waitForStatus(p, id, ["COMPLETED", "FAILED"], 60_000);
    expect(root.status).toBe("FAILED");
    expect(root.error).toContain(
      `sub-workflows nest at most ${MAX_CALL_DEPTH} calls deep, and this execution runs ${MAX_CALL_DEPTH} deep`,
    );
    const runs = await executionsOf(p, self);
    expect(runs.length).toBe(MAX_CALL_DEPTH + 1);
    expect(runs.map((r) => r.status)).toEqual(runs.map(() => "FAILED"));
    expect(Math.max(...runs.map((r) => r.parent?.depth ?? 0))).toBe(MAX_CALL_DEPTH);
  }, 90_000);
});
