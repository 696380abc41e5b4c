import { describe, expect, it } from "vitest";
import { ApprovalView, ConsoleExecutionList, ConsoleStepDetail } from "@wf/shared/api";
import { TERMINAL_STATUSES } from "@wf/shared/execution";
import { waitFor } from "@wf/testing";
import { SIMPLE_YAML, storeWorkflow } from "../api/support";
import { gatedYaml } from "../approvals/support";
import { consoleCall, consoleSession, statusAndCode, useConsole, type Answer, type Session } from "./support";

const env = useConsole({ runtime: true });

const WAIT_YAML = `
name: parked
steps:
  - { name: hold, type: wait, seconds: 600 }
`;

const ARTIFACT_YAML = `
name: note
steps:
  - name: write
    type: code
    language: javascript
    code: |
      artifacts.write("note.txt", "a note");
      return "written";
`;

const fields = (r: Answer) => (r.body.details as { in: string; field: string }[]).map((d) => `${d.in} ${d.field}`);

async function run(me: Session, workflowId: string): Promise<string> {
  const r = await consoleCall(env(), me, "POST", `/api/console/workflows/${workflowId}/executions`, { body: {} });
  expect(r.status).toBe(202);
  return r.body.executionId as string;
}

async function statusOf(me: Session, id: string, statuses: string[]): Promise<Record<string, unknown>> {
  return waitFor(
    async () => {
      const r = await consoleCall(env(), me, "GET", `/api/console/executions/${id}`);
      return r.status === 200 && statuses.includes(r.body.status as string) ? r.body : undefined;
    },
    { timeoutMs: 20_000, what: `execution ${id} in ${statuses.join("/")}` },
  );
}

async function pausedApproval(me: Session): Promise<{ executionId: string; approval: ApprovalView }> {
  const wf = await storeWorkflow(env(), me.user.id, gatedYaml());
  const executionId = await run(me, wf.id);
  await statusOf(me, executionId, ["AWAITING_APPROVAL"]);
  const approval = await waitFor(async () => (await env().platform.store.approvals.listByExecution(executionId))[0], {
    timeoutMs: 20_000,
    what: "the approval record",
  });
  return {
    executionId,
    approval: ApprovalView.parse((await consoleCall(env(), me, "GET", `/api/console/approvals/${approval.id}`)).body),
  };
}

describe("console lists: session and CSRF", () => {
  it("every route is 401 without a session; every change is 403 without X-CSRF-Token", async () => {
    const me = await consoleSession(env());
    const gets = [
      "/api/console/executions",
      "/api/console/executions/x/steps/a",
      "/api/console/approvals",
      "/api/console/approvals/x",
    ];
    for (const path of gets)
      expect(statusAndCode(await consoleCall(env(), null, "GET", path)), path).toEqual([401, "SESSION_REQUIRED"]);
    const posts = [
      "/api/console/executions/x/cancel",
      "/api/console/approvals/x/approve",
      "/api/console/approvals/x/reject",
    ];
    for (const path of posts) {
      expect(statusAndCode(await consoleCall(env(), null, "POST", path, { body: {} })), path).toEqual([
        401,
        "SESSION_REQUIRED",
      ]);
      expect(statusAndCode(await consoleCall(env(), me, "POST", path, { body: {}, csrf: false })), path).toEqual([
        403,
        "CSRF_FAILED",
      ]);
    }
  });

  it("400 naming the field for a bad query or body", async () => {
    const me = await consoleSession(env());
    const q = await consoleCall(
      env(),
      me,
      "GET",
      "/api/console/executions?status=NOPE&limit=0&since=yesterday&triggerSource=fax&extra=1",
    );
    expect(statusAndCode(q)).toEqual([400, "VALIDATION_FAILED"]);
    expect(fields(q).sort()).toEqual([
      "query extra",
      "query limit",
      "query since",
      "query status",
      "query triggerSource",
    ]);
    const cursor = await consoleCall(env(), me, "GET", "/api/console/executions?cursor=not-a-cursor");
    expect(statusAndCode(cursor)).toEqual([400, "VALIDATION_FAILED"]);
    expect(fields(cursor)).toEqual(["query cursor"]);
    const a = await consoleCall(env(), me, "GET", "/api/console/approvals?status=MAYBE");
    expect(fields(a)).toEqual(["query status"]);
    const approve = await consoleCall(env(), me, "POST", "/api/console/approvals/x/approve", {
      body: { comment: 1, nope: true },
    });
    expect(statusAndCode(approve)).toEqual([400, "VALIDATION_FAILED"]);
    expect(fields(approve).sort()).toEqual(["body comment", "body nope"]);
    const cancel = await consoleCall(env(), me, "POST", "/api/console/executions/x/cancel", { body: { why: "x" } });
    expect(fields(cancel)).toEqual(["body why"]);
  });
});

describe("GET /api/console/executions", () => {
  it("lists own and shared workflows' executions newest first, filtered by status, workflow, trigger source and time, page by page", async () => {
    const me = await consoleSession(env());
    const other = await consoleSession(env());
    const mine = await storeWorkflow(env(), me.user.id, SIMPLE_YAML);
    const parked = await storeWorkflow(env(), me.user.id, WAIT_YAML);
    const shared = await storeWorkflow(env(), other.user.id, SIMPLE_YAML, { sharedWith: { [me.user.id]: "viewer" } });
    const hidden = await storeWorkflow(env(), other.user.id, SIMPLE_YAML);

    const a = await run(me, mine.id);
    await statusOf(me, a, ["COMPLETED"]);
    const b = await run(other, shared.id);
    await statusOf(other, b, ["COMPLETED"]);
    const c = await run(me, parked.id);
    await statusOf(me, c, ["RUNNING"]);
    const d = await run(other, hidden.id);

    const list = async (query: string) => {
      const r = await consoleCall(env(), me, "GET", `/api/console/executions${query}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return ConsoleExecutionList.parse(r.body);
    };
    const all = await list("");
    expect(all.items.map((e) => e.id)).toEqual([c, b, a]);
    expect(all.nextCursor).toBeNull();
    expect(all.items.map((e) => e.id)).not.toContain(d);
    expect(all.items[0]).not.toHaveProperty("steps");

    expect((await list("?status=COMPLETED")).items.map((e) => e.id)).toEqual([b, a]);
    expect((await list("?status=RUNNING")).items.map((e) => e.id)).toEqual([c]);
    expect((await list(`?workflowId=${shared.id}`)).items.map((e) => e.id)).toEqual([b]);
    expect((await list(`?workflowId=${hidden.id}`)).items).toEqual([]);
    expect((await list("?triggerSource=console")).items).toHaveLength(3);
    expect((await list("?triggerSource=webhook")).items).toEqual([]);
    const createdB = all.items[1]!.createdAt;
    expect((await list(`?since=${createdB}`)).items.map((e) => e.id)).toEqual([c, b]);
    expect((await list(`?until=${createdB}`)).items.map((e) => e.id)).toEqual([b, a]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.items.length).toBeLessThanOrEqual(1);
      seen.push(...page.items.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual([c, b, a]);

    await consoleCall(env(), me, "POST", `/api/console/executions/${c}/cancel`, { body: {} });
  });
});

describe("POST /api/console/executions/{id}/cancel", () => {
  it("cancels a parked execution (CANCELLED); a viewer gets 403, another owner 404, a finished one 404", async () => {
    const me = await consoleSession(env());
    const viewer = await consoleSession(env());
    const stranger = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, WAIT_YAML, { sharedWith: { [viewer.user.id]: "viewer" } });
    const id = await run(me, wf.id);
    await statusOf(me, id, ["RUNNING"]);

    expect(statusAndCode(await consoleCall(env(), viewer, "POST", `/api/console/executions/${id}/cancel`))).toEqual([
      403,
      "FORBIDDEN",
    ]);
    expect(statusAndCode(await consoleCall(env(), stranger, "POST", `/api/console/executions/${id}/cancel`))).toEqual([
      404,
      "NOT_FOUND",
    ]);
    const r = await consoleCall(env(), me, "POST", `/api/console/executions/${id}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ executionId: id, status: "CANCELLED" });
    await statusOf(me, id, ["CANCELLED"]);
    expect((await consoleCall(env(), me, "POST", `/api/console/executions/${id}/cancel`, { body: {} })).status).toBe(
      404,
    );
  });
});

describe("GET /api/console/executions/{id}/steps/{path}", () => {
  it("a code step's detail, its artifact with a download URL that works; 404 for an unknown step or another owner's execution", async () => {
    const me = await consoleSession(env());
    const stranger = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, ARTIFACT_YAML);
    const id = await run(me, wf.id);
    const done = await waitFor(
      async () => {
        const r = await consoleCall(env(), me, "GET", `/api/console/executions/${id}`);
        return TERMINAL_STATUSES.has(r.body.status as never) ? r.body : undefined;
      },
      { timeoutMs: 20_000, what: "the execution to end" },
    );
    expect(done.status, String(done.error)).toBe("COMPLETED");

    const r = await consoleCall(env(), me, "GET", `/api/console/executions/${id}/steps/write`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const step = ConsoleStepDetail.parse(r.body);
    expect(step).toMatchObject({
      path: "write",
      name: "write",
      type: "code",
      status: "COMPLETED",
      output: "written",
      error: null,
      attempts: 1,
      toolCalls: [],
      reused: false,
    });
    expect(step.artifacts).toEqual([
      expect.objectContaining({ name: "note.txt", stepName: "write", downloadUrl: expect.any(String) }),
    ]);
    const file = await fetch(`${env().base}${step.artifacts[0]!.downloadUrl}`);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe("a note");

    expect(statusAndCode(await consoleCall(env(), me, "GET", `/api/console/executions/${id}/steps/nope`))).toEqual([
      404,
      "NOT_FOUND",
    ]);
    expect(
      statusAndCode(await consoleCall(env(), stranger, "GET", `/api/console/executions/${id}/steps/write`)),
    ).toEqual([404, "NOT_FOUND"]);
  });
});

describe("monitoring of console runs", () => {
  const LOGGING_YAML = `
name: logs
variables:
  who: { type: string, required: true }
steps:
  - name: say
    type: code
    language: javascript
    input: { who: "{{ vars.who }}" }
    code: |
      console.log("hello " + input.who);
      return input.who;
`;

  it("keeps each step's input and logs by default, for the step view; enableMonitoring false leaves them out", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, LOGGING_YAML);
    const detailOf = async (body: Record<string, unknown>) => {
      const started = await consoleCall(env(), me, "POST", `/api/console/workflows/${wf.id}/executions`, { body });
      expect(started.status).toBe(202);
      const id = started.body.executionId as string;
      await statusOf(me, id, ["COMPLETED"]);
      return ConsoleStepDetail.parse(
        (await consoleCall(env(), me, "GET", `/api/console/executions/${id}/steps/say`)).body,
      );
    };
    const watched = await detailOf({ inputs: { who: "Ada" } });
    expect(watched.input).toEqual({ who: "Ada" });
    expect(watched.logs.join("\n")).toContain("hello Ada");
    const quiet = await detailOf({ inputs: { who: "Bo" }, enableMonitoring: false });
    expect(quiet.output).toBe("Bo");
    expect([quiet.input, quiet.logs]).toEqual([null, []]);
  });
});

describe("console approvals", () => {
  it("inbox newest first, rows stripped and counted; detail with rows; another owner's is 404", async () => {
    const me = await consoleSession(env());
    const stranger = await consoleSession(env());
    const { approval } = await pausedApproval(me);
    expect(approval.reviewableGroups[0]!.items).toHaveLength(3);

    const r = await consoleCall(env(), me, "GET", "/api/console/approvals?status=PENDING");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 1, page: 1, size: 20 });
    expect((r.body.approvals as ApprovalView[])[0]).toMatchObject({
      id: approval.id,
      reviewableGroups: [{ items: [], itemsCount: 3 }],
    });
    expect((await consoleCall(env(), me, "GET", "/api/console/approvals?status=APPROVED")).body).toMatchObject({
      total: 0,
    });

    expect(statusAndCode(await consoleCall(env(), stranger, "GET", `/api/console/approvals/${approval.id}`))).toEqual([
      404,
      "NOT_FOUND",
    ]);
    expect((await consoleCall(env(), stranger, "GET", "/api/console/approvals")).body).toMatchObject({ total: 0 });
    for (const verb of ["approve", "reject"]) {
      expect(
        statusAndCode(await consoleCall(env(), stranger, "POST", `/api/console/approvals/${approval.id}/${verb}`)),
      ).toEqual([404, "NOT_FOUND"]);
    }
    await consoleCall(env(), me, "POST", `/api/console/approvals/${approval.id}/reject`, { body: {} });
  });

  it("approve with an edited row: the gated step sees only it; a viewer gets 403; a second approve is 404", async () => {
    const me = await consoleSession(env());
    const viewer = await consoleSession(env());
    const { executionId, approval } = await pausedApproval(me);
    const wf = await env().platform.store.workflows.get(approval.workflowId);
    await env().platform.store.workflows.update(
      { ...wf!.value, sharedWith: { [viewer.user.id]: "viewer" } },
      wf!.version,
    );

    expect(
      statusAndCode(await consoleCall(env(), viewer, "POST", `/api/console/approvals/${approval.id}/approve`)),
    ).toEqual([403, "FORBIDDEN"]);
    const bad = await consoleCall(env(), me, "POST", `/api/console/approvals/${approval.id}/approve`, {
      body: { editedItems: { rows: [{ id: 9, nope: 1 }] } },
    });
    expect(statusAndCode(bad)).toEqual([400, "VALIDATION_FAILED"]);

    const edited = [{ id: 2, action: "reply politely" }];
    const r = await consoleCall(env(), me, "POST", `/api/console/approvals/${approval.id}/approve`, {
      body: { comment: "only the second", editedItems: { rows: edited } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({
      id: approval.id,
      status: "APPROVED",
      decidedBy: me.user.id,
      comment: "only the second",
    });

    const done = await statusOf(me, executionId, ["COMPLETED", "FAILED"]);
    expect(done.status).toBe("COMPLETED");
    expect((done.steps as Record<string, unknown>).apply).toMatchObject({
      status: "COMPLETED",
      output: { applied: edited },
    });

    const again = await consoleCall(env(), me, "POST", `/api/console/approvals/${approval.id}/approve`, { body: {} });
    expect(statusAndCode(again)).toEqual([404, "NOT_FOUND"]);
  });

  it("reject: the execution FAILED; rejecting again is 409", async () => {
    const me = await consoleSession(env());
    const { executionId, approval } = await pausedApproval(me);
    // The execution names the approval its step waits on, for the execution page to link to it.
    const waiting = await statusOf(me, executionId, ["AWAITING_APPROVAL"]);
    expect((waiting.steps as Record<string, unknown>).apply).toMatchObject({
      status: "AWAITING_APPROVAL",
      approvalId: approval.id,
    });
    const r = await consoleCall(env(), me, "POST", `/api/console/approvals/${approval.id}/reject`, {
      body: { comment: "too risky" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "REJECTED", comment: "too risky" });
    const done = await statusOf(me, executionId, ["COMPLETED", "FAILED"]);
    expect(done).toMatchObject({ status: "FAILED", error: `approval ${approval.id} rejected: too risky` });
    expect(
      statusAndCode(await consoleCall(env(), me, "POST", `/api/console/approvals/${approval.id}/reject`, { body: {} })),
    ).toEqual([409, "CONFLICT"]);
  });
});
