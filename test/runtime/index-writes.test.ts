import type { Msg } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalDecision } from "@wf/shared/api";
import { subjects } from "@wf/shared/nats";
import { newId } from "@wf/shared/execution";
import { newWorkflowRecord, settleApproval } from "@wf/shared/store";
import { useNatsServer } from "@wf/testing/nats-connection";
import {
  definitionOf,
  endedEventTypes,
  run,
  startRuntime,
  testConfig,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import { countWrites, type WriteCounts } from "../support/write-counts";

/**
 * How often an approval, and a wait after a step that acts outside, write their execution's record and its index key
 * (docs/architecture.md#durability-by-effect), counted as foreach-writes.test.ts counts: by the sequences of the
 * records bucket's stream, the index bucket's and the events'. The puts of records and approvals are watched in the
 * order the server took them, to check what each write holds when the approval is put.
 */
const nats = useNatsServer();
let rt: InProcessRuntime;
/** The record puts (of the execution `id`) and the approvals' first puts, in order. */
const puts: (
  | { kind: "record"; id: string; status: string; approvalIds: string[]; steps: Record<string, string> }
  | { kind: "approval"; id: string }
)[] = [];

beforeAll(async () => {
  // Waits over a second park and wake by their timer.
  rt = await startRuntime(testConfig(nats.server, { WF_HOLD_WAIT_MS: "1000" }));
  const nc = rt.platform.nc;
  nc.subscribe(`$KV.${rt.ns}_executions.>`, {
    callback: (_err: unknown, m: Msg) => {
      if (m.data.length === 0) return;
      const r = m.json<{
        id: string;
        status: string;
        steps: Record<string, { status: string; approvalId?: string | null }>;
      }>();
      const approvalIds = Object.values(r.steps).flatMap((st) => (st.approvalId ? [st.approvalId] : []));
      const steps = Object.fromEntries(Object.entries(r.steps).map(([path, st]) => [path, st.status]));
      puts.push({ kind: "record", id: r.id, status: r.status, approvalIds, steps });
    },
  });
  nc.subscribe(`$KV.${rt.ns}_approvals.>`, {
    callback: (_err: unknown, m: Msg) => {
      if (m.data.length === 0) return;
      const id = m.json<{ id: string }>().id;
      if (!puts.some((p) => p.kind === "approval" && p.id === id)) puts.push({ kind: "approval", id });
    },
  });
  await nc.flush();
});
afterAll(async () => {
  await rt?.stop();
});

/** Approves execution `id`'s approval once it awaits it, as the edge does: the decision, then its command. */
async function approve(id: string): Promise<void> {
  await waitForStatus(rt.platform, id, ["AWAITING_APPROVAL"]);
  const [a] = await rt.platform.store.approvals.listByExecution(id);
  const decidedAt = Date.now();
  const decision = { decidedAt, decidedBy: "reviewer", comment: null };
  const settled = await settleApproval(rt.platform.store, a!.id, (x) => ({ ...x, status: "APPROVED", ...decision }));
  expect(settled.won).toBe(true);
  const cmd: ApprovalDecision = { approvalId: a!.id, executionId: id, verb: "approve", ...decision, editedItems: null };
  await rt.platform.js.publish(subjects(rt.ns).approval("approve", a!.id, id), JSON.stringify(cmd), {
    msgID: `${a!.id}.approve`,
  });
}

/** Runs `yaml` to its end, approving what it awaits: what it wrote to the records, index and event streams. */
function writesOf(yaml: string, approves: boolean, started?: (id: string) => void): Promise<WriteCounts> {
  return countWrites(
    rt,
    () => (puts.length = 0),
    async () => {
      const id = await run(rt.platform, yaml);
      started?.(id);
      if (approves) await approve(id);
      expect((await endedEventTypes(rt.platform.jsm, rt.ns, id)).at(-1)).toBe("exec_completed");
    },
  );
}

/**
 * The crash rule at an approval: its id is in a stored record before the approval is put (a replay finds it, and opens
 * no second one), and the execution says AWAITING_APPROVAL only once the approval is there to find
 * (docs/architecture.md#approvals).
 */
function expectApprovalOrder(): void {
  const at = puts.findIndex((p) => p.kind === "approval");
  expect(at).toBeGreaterThan(0);
  const approval = puts[at] as { id: string };
  const before = puts.slice(0, at).flatMap((p) => (p.kind === "record" ? [p] : []));
  expect(before.some((p) => p.approvalIds.includes(approval.id))).toBe(true);
  expect(before.map((p) => p.status)).not.toContain("AWAITING_APPROVAL");
}

const GATE = "{ name: gate, type: transform, output: 1, manual_approval: { message: go?, timeout: 600 } }";
const PYTHON = "{ name: py, type: code, language: python, code: print(1) }";

describe("the writes of an approval", () => {
  it("first step: its id with the record's create (RUNNING), the park, the end", async () => {
    const writes = await writesOf(`name: gate-first\nsteps:\n  - ${GATE}\n`, true);
    // The index key is put by each: the create must put it, and the park's AWAITING_APPROVAL must wait for the
    // approval to be there, so neither carries the other's status.
    expect(writes).toEqual({ records: 3, index: 3, published: 7 });
    expectApprovalOrder();
  }, 60_000);

  it("after a Python step: its id with the step's result, the park, the end", async () => {
    const writes = await writesOf(`name: gate-after-python\nsteps:\n  - ${PYTHON}\n  - ${GATE}\n`, true);
    // The Python step's start (RUNNING), its result with the approval's id, the park (AWAITING_APPROVAL), the end.
    // Before, the result was written on its own, the id with nothing (the write found nothing changed, and the
    // approval was put before any record named it), and the resume wrote its hold on passing the Python step again
    // (5 record writes).
    expect(writes).toEqual({ records: 4, index: 3, published: 9 });
    expectApprovalOrder();
  }, 60_000);

  it("after a Python step, behind a condition: the step's result at once, then its id on its own", async () => {
    const gate = GATE.replace("output: 1,", 'output: 1, condition: "true",');
    const writes = await writesOf(`name: gate-on-condition\nsteps:\n  - ${PYTHON}\n  - ${gate}\n`, true);
    // The condition runs between the two, so the result does not wait for the approval's id. Before, the id's write
    // found nothing changed and was not made: the approval was put before any record named it.
    expect(writes).toEqual({ records: 5, index: 3, published: 9 });
    expectApprovalOrder();
  }, 60_000);
});

describe("the writes of a wait after a Python step", () => {
  it("writes the step's start, its result, the park and the end: the resume passing over the step writes nothing", async () => {
    const writes = await writesOf(
      `name: wait-after-python\nsteps:\n  - ${PYTHON}\n  - { name: pause, type: wait, seconds: 1.2 }\n`,
      false,
    );
    // Before, the resume wrote its hold as it passed over the Python step (5 record writes).
    expect(writes).toEqual({ records: 4, index: 2, published: 8 });
    // The step's result is written before the wait begins, not by the park's write: the wait's timer is armed before
    // that write, and a crash between the two would find the step in flight after it ended, to run it again.
    expect(puts.flatMap((p) => (p.kind === "record" ? [[p.status, p.steps]] : []))).toEqual([
      ["RUNNING", { py: "RUNNING" }],
      ["RUNNING", { py: "COMPLETED" }],
      ["RUNNING", { py: "COMPLETED", pause: "RUNNING" }],
      ["COMPLETED", { py: "COMPLETED", pause: "COMPLETED" }],
    ]);
  }, 60_000);
});

describe("the writes of a sub-workflow after a Python step", () => {
  it("writes the step's start, its result with the child's id, the park and the end", async () => {
    const yaml = "name: child\nsteps:\n  - { name: t, type: transform, output: 1 }\n";
    const child = newWorkflowRecord({ id: `wf-${newId()}`, ownerId: "owner1", yaml, definition: definitionOf(yaml) });
    await rt.platform.store.workflows.create(child);
    let parent = "";
    const writes = await writesOf(
      `name: call-after-python\nsteps:\n  - ${PYTHON}\n  - { name: call, type: workflow, workflow: ${child.id} }\n`,
      false,
      (id) => (parent = id),
    );
    // The child's one write (its end) among them. Before, the Python step's result was written on its own, then the
    // child's id (6 record writes, 5 the parent's).
    expect(writes).toEqual({ records: 5, index: 3, published: 12 });
    const records = puts.flatMap((p) => (p.kind === "record" ? [p] : []));
    expect(records.filter((p) => p.id === parent).map((p) => p.steps)).toEqual([
      { py: "RUNNING" },
      { py: "COMPLETED", call: "RUNNING" },
      { py: "COMPLETED", call: "RUNNING" },
      { py: "COMPLETED", call: "COMPLETED" },
    ]);
    // The child's id is stored, with the result before it, before the child is started.
    expect(records.findIndex((p) => p.id !== parent)).toBeGreaterThan(1);
  }, 60_000);
});

describe("the writes of a sub-workflow after a foreach of Python steps", () => {
  it("writes the items' starts, the last item's result with the child's id, the park and the end", async () => {
    const yaml = "name: child\nsteps:\n  - { name: t, type: transform, output: 1 }\n";
    const child = newWorkflowRecord({ id: `wf-${newId()}`, ownerId: "owner1", yaml, definition: definitionOf(yaml) });
    await rt.platform.store.workflows.create(child);
    let parent = "";
    const writes = await writesOf(
      `name: call-after-foreach\nsteps:\n  - { name: each, type: foreach, items: [1, 2], steps: [${PYTHON}] }\n` +
        `  - { name: call, type: workflow, workflow: ${child.id} }\n`,
      false,
      (id) => (parent = id),
    );
    // The child's one write (its end) among them. Before, the last item's result was written on its own, then the
    // child's id (7 record writes, 6 the parent's).
    expect(writes).toEqual({ records: 6, index: 3, published: 16 });
    const records = puts.flatMap((p) => (p.kind === "record" ? [p] : []));
    expect(records.filter((p) => p.id === parent).map((p) => p.steps)).toEqual([
      { each: "RUNNING", "each[0].py": "RUNNING" },
      { each: "RUNNING", "each[0].py": "COMPLETED", "each[1].py": "RUNNING" },
      { each: "COMPLETED", "each[0].py": "COMPLETED", "each[1].py": "COMPLETED", call: "RUNNING" },
      { each: "COMPLETED", "each[0].py": "COMPLETED", "each[1].py": "COMPLETED", call: "RUNNING" },
      { each: "COMPLETED", "each[0].py": "COMPLETED", "each[1].py": "COMPLETED", call: "COMPLETED" },
    ]);
    // The child's id is stored, with the result before it, before the child is started.
    expect(records.findIndex((p) => p.id !== parent)).toBeGreaterThan(2);
  }, 60_000);
});
