import type { Msg } from "@nats-io/nats-core";
import { afterAll, describe, expect, it } from "vitest";
import { waitFor } from "../support/runtime";
import { account, call, statusReached, storeWorkflow, useApi, type Account } from "./support";

/**
 * How many times an execution's record is written on a course (docs/architecture.md#durability-by-effect),
 * counted on the records bucket's subjects as a NATS subscriber sees them.
 */
const api = useApi({ runtime: true });
const writes: { id: string; status: string }[] = [];
let me: Account;
let unsubscribe = (): void => undefined;

async function started(yaml: string): Promise<string> {
  if (!me) {
    me = await account(api(), { plan: "pro" });
    const sub = api().platform.nc.subscribe(`$KV.${api().ns}_executions.>`, {
      callback: (_err: unknown, m: Msg) => {
        if (m.data.length === 0) return;
        const { id, status } = m.json<{ id: string; status: string }>();
        writes.push({ id, status });
      },
    });
    unsubscribe = () => sub.unsubscribe();
  }
  const wf = await storeWorkflow(api(), me.user.id, yaml);
  const r = await call(api(), "POST", `/api/v1/workflows/${wf.id}/executions`, { key: me.key, body: {} });
  expect(r.statusCode).toBe(202);
  return r.json<{ executionId: string }>().executionId;
}

/** The statuses of the writes of `id`, once its record says it ended and that write was seen. */
async function writtenStatuses(id: string): Promise<string[]> {
  await statusReached(api(), me.key, id, ["COMPLETED", "FAILED"]);
  return waitFor(
    async () => {
      const of = writes.filter((w) => w.id === id).map((w) => w.status);
      return of.at(-1) === "COMPLETED" || of.at(-1) === "FAILED" ? of : undefined;
    },
    { what: `the end write of ${id}` },
  );
}

afterAll(() => unsubscribe());

describe("what a course writes", () => {
  it("a resumed execution takes hold with its next write: an approved gate is the park's write, then the end's", async () => {
    const id = await started(`
name: gated
steps:
  - { name: gate, type: transform, output: done, manual_approval: { message: go?, timeout: 600 } }
`);
    await statusReached(api(), me.key, id, ["AWAITING_APPROVAL"]);
    const approvals = await call(api(), "GET", `/api/v1/approvals/execution/${id}`, { key: me.key });
    const [approval] = approvals.json<{ approvals: { id: string }[] }>().approvals;
    const approved = await call(api(), "POST", `/api/v1/approvals/${approval!.id}/approve`, { key: me.key, body: {} });
    expect(approved.statusCode).toBe(200);
    // The approval's id before its record, the park, the end: no write of the hold on its own.
    expect(await writtenStatuses(id)).toEqual(["RUNNING", "AWAITING_APPROVAL", "COMPLETED"]);
  });

  it("a workflow ending in a step that acts outside writes that step's result with its end", async () => {
    const id = await started(`
name: two-bash
steps:
  - { name: first, type: code, language: bash, code: "echo 1" }
  - { name: last, type: code, language: bash, code: "echo 2" }
`);
    // first's start; last's start, carrying first's result; the end, carrying last's.
    expect(await writtenStatuses(id)).toEqual(["RUNNING", "RUNNING", "COMPLETED"]);
  });
});
