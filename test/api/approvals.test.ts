import { describe, expect, it } from "vitest";
import { ApprovalDecision, ApprovalList, ApprovalsOfExecution, ApprovalView } from "@wf/shared/api";
import { newId } from "@wf/shared/execution";
import { ensureStreams, ONE_REPLICA, streamNames, subjects } from "@wf/shared/nats";
import { ApprovalRecord, type ApprovalStatus } from "@wf/shared/store";
import {
  account,
  call,
  SIMPLE_YAML,
  storedExecution,
  storeWorkflow,
  useApi,
  type Account,
  type ApiEnv,
} from "./support";

const api = useApi();

/**
 * Approval records as the approvals actor will write them (that actor comes with its own issue):
 * one PENDING record for a paused execution, with a group of rows.
 */
async function approvalFor(env: ApiEnv, owner: Account, over: Partial<ApprovalRecord> = {}): Promise<ApprovalRecord> {
  const workflow = await storeWorkflow(env, owner.user.id, SIMPLE_YAML);
  const executionId = over.executionId ?? newId();
  if (!(await env.platform.store.executions.get(executionId))) {
    await env.platform.store.executions.create(
      storedExecution({
        id: executionId,
        workflowId: workflow.id,
        ownerId: owner.user.id,
        status: "AWAITING_APPROVAL",
        currentStep: "review",
        completedSteps: 0,
        completedAt: null,
      }),
    );
  }
  const now = Date.now();
  const record = ApprovalRecord.parse({
    id: newId(),
    executionId,
    workflowId: workflow.id,
    ownerId: owner.user.id,
    stepName: "review",
    status: "PENDING",
    approvalMessage: "Check the refunds",
    timeout: 3600,
    createdAt: now,
    expiresAt: now + 3_600_000,
    reviewableGroups: [
      {
        name: "refunds",
        title: "Refunds",
        columns: [
          { key: "order", title: "Order", type: "string" },
          { key: "amount", title: "Amount", type: "number", editable: true },
          { key: "ok", title: "OK", type: "boolean", editable: true },
        ],
        items: [
          { order: "A-1", amount: 10, ok: true },
          { order: "A-2", amount: 99, ok: false },
        ],
        itemsCount: 2,
      },
    ],
    ...over,
  });
  await env.platform.store.approvals.create(record);
  return record;
}

async function lastCommand(env: ApiEnv, verb: string, a: ApprovalRecord): Promise<ApprovalDecision> {
  const msg = await env.platform.jsm.streams.getMessage(streamNames(env.ns).cmd, {
    last_by_subj: subjects(env.ns).approval(verb, a.id, a.executionId),
  });
  return ApprovalDecision.parse(msg!.json());
}

describe("approval lists and detail", () => {
  it("lists the owner's approvals newest first (20 a page), rows stripped and counted; the detail has them", async () => {
    const me = await account(api());
    const older = await approvalFor(api(), me, { createdAt: Date.now() - 1000 });
    const newer = await approvalFor(api(), me);
    await approvalFor(api(), await account(api()));

    const r = await call(api(), "GET", "/api/v1/approvals", { key: me.key });
    expect(r.statusCode).toBe(200);
    const list = ApprovalList.parse(r.json());
    expect(list).toMatchObject({ total: 2, page: 1, size: 20 });
    expect(list.approvals.map((a) => a.id)).toEqual([newer.id, older.id]);
    expect(list.approvals[0]!.reviewableGroups).toEqual([
      expect.objectContaining({ name: "refunds", items: [], itemsCount: 2 }),
    ]);

    const detail = ApprovalView.parse(
      (await call(api(), "GET", `/api/v1/approvals/${newer.id}`, { key: me.key })).json(),
    );
    expect(detail).toMatchObject({
      id: newer.id,
      executionId: newer.executionId,
      workflowId: newer.workflowId,
      stepName: "review",
      status: "PENDING",
      approvalMessage: "Check the refunds",
      timeout: 3600,
      decidedAt: null,
    });
    expect(detail.reviewableGroups[0]!.items).toHaveLength(2);
    expect(detail.reviewableGroups[0]!.columns).toHaveLength(3);

    const pending = (
      await call(api(), "GET", "/api/v1/approvals?status=PENDING&size=1&page=2", { key: me.key })
    ).json();
    expect(pending).toMatchObject({ total: 2, page: 2, size: 1, approvals: [{ id: older.id }] });
    expect((await call(api(), "GET", "/api/v1/approvals?status=MAYBE", { key: me.key })).statusCode).toBe(400);
    expect((await call(api(), "GET", "/api/v1/approvals?size=201", { key: me.key })).statusCode).toBe(400);
  });

  it("lists one execution's approvals with rows stripped; 404 for an invisible execution or approval", async () => {
    const me = await account(api());
    const first = await approvalFor(api(), me);
    const second = await approvalFor(api(), me, { executionId: first.executionId, stepName: "second" });
    const r = await call(api(), "GET", `/api/v1/approvals/execution/${first.executionId}`, { key: me.key });
    const body = ApprovalsOfExecution.parse(r.json());
    expect(body.total).toBe(2);
    expect(body.approvals.map((a) => a.id)).toEqual([first.id, second.id]);
    expect(
      body.approvals.every((a) => a.reviewableGroups.every((g) => g.items.length === 0 && g.itemsCount === 2)),
    ).toBe(true);

    const stranger = await account(api());
    expect(
      (await call(api(), "GET", `/api/v1/approvals/execution/${first.executionId}`, { key: stranger.key })).statusCode,
    ).toBe(404);
    expect((await call(api(), "GET", `/api/v1/approvals/${first.id}`, { key: stranger.key })).statusCode).toBe(404);
    expect((await call(api(), "GET", `/api/v1/approvals/no-such`, { key: me.key })).statusCode).toBe(404);
  });
});

describe("approve and reject", () => {
  it("approve records the decision, answers the record APPROVED and publishes the approve command", async () => {
    const me = await account(api());
    const a = await approvalFor(api(), me);
    const editedItems = { refunds: [{ order: "A-1", amount: 5, ok: true }] };
    const r = await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, {
      key: me.key,
      body: { comment: "fine", editedItems },
    });
    expect(r.statusCode).toBe(200);
    const view = ApprovalView.parse(r.json());
    expect(view).toMatchObject({
      id: a.id,
      status: "APPROVED",
      decidedBy: me.user.id,
      comment: "fine",
      editedItems,
      decidedAt: expect.any(Number),
    });
    expect((await api().platform.store.approvals.get(a.id))!.value.status).toBe("APPROVED");
    expect(await lastCommand(api(), "approve", a)).toEqual({
      approvalId: a.id,
      executionId: a.executionId,
      verb: "approve",
      decidedBy: me.user.id,
      decidedAt: view.decidedAt,
      comment: "fine",
      editedItems,
    });

    // Handled: approving again is a 404, rejecting it a 409 (docs/api.md, Approvals).
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: me.key })).statusCode).toBe(404);
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/reject`, { key: me.key })).statusCode).toBe(409);
  });

  it("approve without a body approves the original rows", async () => {
    const me = await account(api());
    const a = await approvalFor(api(), me);
    const r = await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: me.key });
    expect(r.json()).toMatchObject({ status: "APPROVED", comment: null, editedItems: null });
  });

  it("reject records the decision and publishes the reject command; a decided approval answers 409, a missing one 404", async () => {
    const me = await account(api());
    const a = await approvalFor(api(), me);
    const r = await call(api(), "POST", `/api/v1/approvals/${a.id}/reject`, {
      key: me.key,
      body: { comment: "wrong amounts" },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: "REJECTED", comment: "wrong amounts", decidedBy: me.user.id });
    expect(await lastCommand(api(), "reject", a)).toMatchObject({
      verb: "reject",
      comment: "wrong amounts",
      editedItems: null,
    });
    const again = await call(api(), "POST", `/api/v1/approvals/${a.id}/reject`, { key: me.key });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ error: expect.stringContaining("rejected"), code: "CONFLICT" });
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: me.key })).statusCode).toBe(404);
    expect((await call(api(), "POST", `/api/v1/approvals/no-such/reject`, { key: me.key })).statusCode).toBe(404);
    expect((await call(api(), "POST", `/api/v1/approvals/no-such/approve`, { key: me.key })).statusCode).toBe(404);
  });

  it.each<[ApprovalStatus, number, number]>([
    ["EXPIRED", 404, 409],
    ["CANCELLED", 404, 409],
  ])("an approval %s is handled: approve %d, reject %d", async (status, approve, reject) => {
    const me = await account(api());
    const a = await approvalFor(api(), me, { status });
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: me.key })).statusCode).toBe(approve);
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/reject`, { key: me.key })).statusCode).toBe(reject);
  });

  it("a PENDING approval past its expiry can no longer be decided", async () => {
    const me = await account(api());
    const a = await approvalFor(api(), me, { expiresAt: Date.now() - 1 });
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: me.key })).statusCode).toBe(404);
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/reject`, { key: me.key })).statusCode).toBe(409);
    expect((await api().platform.store.approvals.get(a.id))!.value.status).toBe("PENDING");
  });

  it.each([
    [{ editedItems: { nope: [] } }, "editedItems.nope", /no group named `nope`/],
    [
      { editedItems: { refunds: [{ order: "A-1", colour: "red" }] } },
      "editedItems.refunds[0].colour",
      /no column `colour`/,
    ],
    [{ editedItems: { refunds: [{ amount: "ten" }] } }, "editedItems.refunds[0].amount", /must be a number/],
    [
      { editedItems: { refunds: [{ order: "A-9", amount: 10, ok: true }] } },
      "editedItems.refunds[0].order",
      /matches no row of group `refunds` left in its read-only columns \(order\)/,
    ],
    [{ editedItems: { refunds: [{ amount: 10, ok: true }] } }, "editedItems.refunds[0].order", /matches no row/],
    [
      {
        editedItems: {
          refunds: [
            { order: "A-1", amount: 1 },
            { order: "A-1", amount: 2 },
          ],
        },
      },
      "editedItems.refunds[1].order",
      /rows are removed, not added or repeated/,
    ],
    [{ editedItems: { refunds: {} } }, "editedItems.refunds", /expected array/],
    [{ comment: 5 }, "comment", /expected string/],
    [{ reason: "x" }, "reason", /unknown field/],
  ])("approve answers 400 for %j and leaves the approval PENDING", async (body, field, message) => {
    const me = await account(api());
    const a = await approvalFor(api(), me);
    const r = await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: me.key, body });
    expect(r.statusCode).toBe(400);
    expect(r.json().details).toContainEqual({ in: "body", field, message: expect.stringMatching(message) });
    expect((await api().platform.store.approvals.get(a.id))!.value.status).toBe("PENDING");
  });

  it("a sharee who only views the workflow gets 403; an editor may decide", async () => {
    const owner = await account(api());
    const viewer = await account(api());
    const editor = await account(api());
    const a = await approvalFor(api(), owner);
    const w = (await api().platform.store.workflows.get(a.workflowId))!;
    await api().platform.store.workflows.update(
      { ...w.value, sharedWith: { [viewer.user.id]: "viewer", [editor.user.id]: "editor" } },
      w.version,
    );
    expect((await call(api(), "GET", `/api/v1/approvals/${a.id}`, { key: viewer.key })).statusCode).toBe(200);
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: viewer.key })).statusCode).toBe(403);
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: editor.key })).statusCode).toBe(200);
  });

  it("of two concurrent decisions exactly one wins", async () => {
    const me = await account(api());
    const a = await approvalFor(api(), me);
    const answers = await Promise.all([
      call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: me.key }),
      call(api(), "POST", `/api/v1/approvals/${a.id}/reject`, { key: me.key }),
    ]);
    const codes = answers.map((r) => r.statusCode).sort();
    expect([
      [200, 404],
      [200, 409],
    ]).toContainEqual(codes);
  });
});

describe("a decision whose command cannot be published", () => {
  it("answers 503 and puts the approval back to PENDING", async () => {
    const me = await account(api());
    const a = await approvalFor(api(), me);
    const { jsm } = api().platform;
    await jsm.streams.delete(streamNames(api().ns).cmd);
    try {
      const r = await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: me.key });
      expect(r.statusCode).toBe(503);
      expect((await api().platform.store.approvals.get(a.id))!.value).toMatchObject({
        status: "PENDING",
        decidedAt: null,
      });
    } finally {
      await ensureStreams(jsm, api().ns, { eventsMaxAgeMs: 3_600_000, placement: ONE_REPLICA });
    }
    expect((await call(api(), "POST", `/api/v1/approvals/${a.id}/approve`, { key: me.key })).statusCode).toBe(200);
  });
});
