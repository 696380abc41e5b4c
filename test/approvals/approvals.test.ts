import { describe, expect, it } from "vitest";
import { ApprovalList, ApprovalView } from "@wf/shared/api";
import { account, anotherKey, storeWorkflow, useApi, type Account } from "../api/support";
import { approvalsOf, gatedYaml, statusOf, useHttp } from "./support";

const api = useApi({ runtime: true });
const http = useHttp(api);

/** Starts the gated workflow over the API and waits until it pauses on its approval. */
async function pausedRun(me: Account, yaml = gatedYaml()): Promise<{ executionId: string; approval: ApprovalView }> {
  const wf = await storeWorkflow(api(), me.user.id, yaml);
  const started = await http("POST", `/api/v1/workflows/${wf.id}/executions`, { key: me.key, body: {} });
  expect(started.status).toBe(202);
  const executionId = (started.body as { executionId: string }).executionId;
  await statusOf(http, me.key, executionId, ["AWAITING_APPROVAL"]);
  const [approval] = await approvalsOf(http, me.key, executionId);
  return { executionId, approval: approval! };
}

describe("manual_approval over HTTP", () => {
  it("pauses AWAITING_APPROVAL with a PENDING record: listed without rows, detailed with them", async () => {
    const me = await account(api());
    const { executionId, approval } = await pausedRun(me);

    const view = await statusOf(http, me.key, executionId, ["AWAITING_APPROVAL"]);
    expect(view.stepResults.fetch).toMatchObject({ status: "COMPLETED" });
    expect(view.stepResults.apply).toMatchObject({ status: "AWAITING_APPROVAL" });
    expect(view.stepResults.after).toBeUndefined();

    expect(approval).toMatchObject({
      executionId,
      stepName: "apply",
      status: "PENDING",
      approvalMessage: "Apply 3 actions?",
      timeout: 3600,
      decidedAt: null,
      decidedBy: null,
    });
    expect(approval.expiresAt - approval.createdAt).toBe(3_600_000);
    expect(approval.reviewableGroups).toEqual([
      {
        name: "rows",
        title: "Actions to apply",
        columns: [
          { key: "id", title: "ID", type: "number", editable: false },
          { key: "action", title: "Action", type: "string", editable: true },
        ],
        items: [],
        itemsCount: 3,
      },
    ]);

    const list = ApprovalList.parse((await http("GET", "/api/v1/approvals?status=PENDING", { key: me.key })).body);
    expect(list).toMatchObject({ total: 1, page: 1, size: 20 });
    expect(list.approvals[0]).toMatchObject({ id: approval.id, reviewableGroups: [{ items: [], itemsCount: 3 }] });

    const detail = ApprovalView.parse((await http("GET", `/api/v1/approvals/${approval.id}`, { key: me.key })).body);
    expect(detail.reviewableGroups[0]!.items).toEqual([
      { id: 1, action: "close" },
      { id: 2, action: "reply" },
      { id: 3, action: "escalate" },
    ]);
  });

  it("approve with edited rows: the gated step sees only the submitted rows; a second approve is 404", async () => {
    const me = await account(api());
    const { executionId, approval } = await pausedRun(me);
    const edited = [{ id: 2, action: "reply politely" }];

    const r = await http("POST", `/api/v1/approvals/${approval.id}/approve`, {
      key: me.key,
      body: { comment: "only the second", editedItems: { rows: edited } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: approval.id,
      status: "APPROVED",
      decidedBy: me.user.id,
      comment: "only the second",
    });

    const done = await statusOf(http, me.key, executionId, ["COMPLETED", "FAILED"]);
    expect(done.status).toBe("COMPLETED");
    expect(done.stepResults.apply).toMatchObject({ status: "COMPLETED", output: { applied: edited } });
    expect(done.stepResults.after).toMatchObject({ status: "COMPLETED", output: "done" });

    const again = await http("POST", `/api/v1/approvals/${approval.id}/approve`, { key: me.key, body: {} });
    expect(again.status).toBe(404);
    expect((again.body as { error: string }).error).toMatch(/already handled/);
  });

  it("approve without edits runs the original rows", async () => {
    const me = await account(api());
    const { executionId, approval } = await pausedRun(me);
    expect((await http("POST", `/api/v1/approvals/${approval.id}/approve`, { key: me.key })).status).toBe(200);
    const done = await statusOf(http, me.key, executionId, ["COMPLETED", "FAILED"]);
    expect(done.stepResults.apply!.output).toEqual({
      applied: [
        { id: 1, action: "close" },
        { id: 2, action: "reply" },
        { id: 3, action: "escalate" },
      ],
    });
  });

  it("reject: the execution fails naming the approval, the gated step never runs, what follows is SKIPPED, upstream kept", async () => {
    const me = await account(api());
    const { executionId, approval } = await pausedRun(me);
    const r = await http("POST", `/api/v1/approvals/${approval.id}/reject`, {
      key: me.key,
      body: { comment: "too risky" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "REJECTED", comment: "too risky" });

    const done = await statusOf(http, me.key, executionId, ["COMPLETED", "FAILED"]);
    expect(done).toMatchObject({ status: "FAILED", error: `approval ${approval.id} rejected: too risky` });
    expect(done.stepResults.fetch).toMatchObject({ status: "COMPLETED", output: { rows: expect.any(Array) } });
    expect(done.stepResults.apply).toMatchObject({ status: "REJECTED", output: null });
    expect(done.stepResults.after).toMatchObject({ status: "SKIPPED" });

    expect((await http("POST", `/api/v1/approvals/${approval.id}/reject`, { key: me.key, body: {} })).status).toBe(409);
    expect((await http("POST", `/api/v1/approvals/${approval.id}/approve`, { key: me.key, body: {} })).status).toBe(
      404,
    );
  });

  it("a 2-second approval times out into EXPIRED (never before its time) and the execution fails", async () => {
    const me = await account(api());
    const { executionId, approval } = await pausedRun(me, gatedYaml(2));
    const done = await statusOf(http, me.key, executionId, ["COMPLETED", "FAILED"]);
    expect(done).toMatchObject({ status: "FAILED", error: `approval ${approval.id} expired` });
    expect(done.stepResults.apply).toMatchObject({ status: "EXPIRED" });
    expect(done.stepResults.after).toMatchObject({ status: "SKIPPED" });

    const record = ApprovalView.parse((await http("GET", `/api/v1/approvals/${approval.id}`, { key: me.key })).body);
    expect(record).toMatchObject({ status: "EXPIRED", decidedBy: "timeout" });
    expect(record.decidedAt!).toBeGreaterThanOrEqual(record.expiresAt);
    expect((await http("POST", `/api/v1/approvals/${approval.id}/approve`, { key: me.key, body: {} })).status).toBe(
      404,
    );
  });

  it("cancel while awaiting approval: the execution is CANCELLED, its approval CANCELLED and no longer decidable", async () => {
    const me = await account(api());
    const { executionId, approval } = await pausedRun(me);
    const r = await http("POST", `/api/v1/executions/${executionId}/cancel`, { key: me.key });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ executionId, status: "CANCELLED" });

    const done = await statusOf(http, me.key, executionId, ["CANCELLED"]);
    expect(done.stepResults.apply).toMatchObject({ status: "CANCELLED" });
    expect(done.stepResults.after).toBeUndefined();
    const [closed] = await approvalsOf(http, me.key, executionId);
    await expect
      .poll(
        async () =>
          ApprovalView.parse((await http("GET", `/api/v1/approvals/${approval.id}`, { key: me.key })).body).status,
        { timeout: 10_000 },
      )
      .toBe("CANCELLED");
    expect(closed!.id).toBe(approval.id);
    expect((await http("POST", `/api/v1/approvals/${approval.id}/approve`, { key: me.key, body: {} })).status).toBe(
      404,
    );
  });

  it("an approval inside foreach gates each item with its own record", async () => {
    const me = await account(api());
    const wf = await storeWorkflow(
      api(),
      me.user.id,
      `
name: per-item
steps:
  - name: each
    type: foreach
    items: [1, 2]
    steps:
      - name: check
        type: transform
        manual_approval:
          message: "Item {{ item }}?"
          timeout: 600
        output: "{{ item * 10 }}"
`,
    );
    const started = await http("POST", `/api/v1/workflows/${wf.id}/executions`, { key: me.key, body: {} });
    const executionId = (started.body as { executionId: string }).executionId;
    const [first] = await approvalsOf(http, me.key, executionId, 1);
    expect(first).toMatchObject({ stepName: "each[0].check", approvalMessage: "Item 1?", reviewableGroups: [] });
    expect((await http("POST", `/api/v1/approvals/${first!.id}/approve`, { key: me.key })).status).toBe(200);
    const both = await approvalsOf(http, me.key, executionId, 2);
    expect(both[1]).toMatchObject({ stepName: "each[1].check", approvalMessage: "Item 2?", status: "PENDING" });
    expect((await http("POST", `/api/v1/approvals/${both[1]!.id}/approve`, { key: me.key })).status).toBe(200);
    const done = await statusOf(http, me.key, executionId, ["COMPLETED", "FAILED"]);
    expect(done).toMatchObject({ status: "COMPLETED" });
    expect(done.stepResults.each!.output).toEqual([10, 20]);
  });

  it("a group whose items are not a list of objects fails the step, saying so, without a record", async () => {
    const me = await account(api());
    const wf = await storeWorkflow(
      api(),
      me.user.id,
      `
name: bad-group
steps:
  - name: gate
    type: transform
    manual_approval:
      message: check
      timeout: 60
      groups:
        - { name: g, title: G, items: "{{ 42 }}", columns: [{ key: a, title: A, type: string }] }
    output: x
`,
    );
    const started = await http("POST", `/api/v1/workflows/${wf.id}/executions`, { key: me.key, body: {} });
    const executionId = (started.body as { executionId: string }).executionId;
    const done = await statusOf(http, me.key, executionId, ["COMPLETED", "FAILED"]);
    expect(done.error).toMatch(/approval group `g`: `items` must evaluate to a list of objects, got number/);
    expect((await http("GET", `/api/v1/approvals/execution/${executionId}`, { key: me.key })).body).toMatchObject({
      total: 0,
    });
  });

  it("the one-click link: GET shows the approval (escaped) and changes nothing; the form POST approves", async () => {
    const me = await account(api());
    const yaml = gatedYaml().replace(
      'message: "Apply {{ $count(steps.fetch.output.rows) }} actions?"',
      'message: "<b>Apply</b> {{ $count(steps.fetch.output.rows) }}?"',
    );
    const { executionId, approval } = await pausedRun(me, yaml);
    const link = `/api/webhook-trigger/approval/${approval.id}/approve?api_key=${encodeURIComponent(me.key)}`;

    const page = await http("GET", link);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.text).toContain("&#60;b&#62;Apply&#60;/b&#62; 3?");
    expect(page.text).not.toContain("<b>Apply");
    expect(page.text).toContain("escalate");
    expect(page.text).toMatch(/<form method="post">/);
    // Prefetching the link twice more changes nothing.
    await http("GET", link);
    expect(
      ApprovalView.parse((await http("GET", `/api/v1/approvals/${approval.id}`, { key: me.key })).body).status,
    ).toBe("PENDING");

    const readOnly = await anotherKey(api(), me, ["EXECUTION_READ"]);
    expect((await http("GET", `/api/webhook-trigger/approval/${approval.id}/approve?api_key=${readOnly}`)).status).toBe(
      401,
    );
    expect(
      (await http("POST", `/api/webhook-trigger/approval/${approval.id}/approve?api_key=${readOnly}`, { form: {} }))
        .status,
    ).toBe(401);

    const approved = await http("POST", link, { form: { comment: "from my phone" } });
    expect(approved.status).toBe(200);
    expect(approved.text).toContain("Approval approved");
    const record = ApprovalView.parse((await http("GET", `/api/v1/approvals/${approval.id}`, { key: me.key })).body);
    expect(record).toMatchObject({ status: "APPROVED", decidedBy: me.user.id, comment: "from my phone" });
    const done = await statusOf(http, me.key, executionId, ["COMPLETED", "FAILED"]);
    expect(done.status).toBe("COMPLETED");

    const again = await http("POST", link, { form: {} });
    expect(again.status).toBe(404);
    expect(again.text).toContain("already handled");
    expect(again.text).toContain("Error code: <code>NOT_FOUND</code>");
    const shown = await http("GET", link);
    expect(shown.text).toContain("Status: <strong>APPROVED</strong>");
    expect(shown.text).toContain("<title>Approval approved</title>");
    expect(shown.text).not.toContain("Approval requested");
    expect(
      (await http("GET", `/api/webhook-trigger/approval/no-such/approve?api_key=${encodeURIComponent(me.key)}`)).status,
    ).toBe(404);
    // An id over its limit is a 400 page naming the problem, not a 500.
    const tooLong = await http(
      "GET",
      `/api/webhook-trigger/approval/${"x".repeat(201)}/approve?api_key=${encodeURIComponent(me.key)}`,
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain("Error code: <code>VALIDATION_FAILED</code>");
  });
});
