import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { axeAudit } from "./axe";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  eventPublished,
  holdOwnerStream,
  screenshot,
  signedIn,
  startExecution,
  unexpectedErrors,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

/** Three rows to review; the gated step outputs the rows it was given, and the next step passes them on. */
function reviewWorkflow(name: string): string {
  return `name: ${name}
steps:
  - name: fetch
    type: transform
    output:
      rows:
        - { id: 1, action: close, notify: true }
        - { id: 2, action: reopen, notify: false }
        - { id: 3, action: escalate, notify: true }
  - name: apply
    type: transform
    manual_approval:
      message: "Apply {{ $count(steps.fetch.output.rows) }} actions?"
      timeout: 3600
      groups:
        - name: rows
          title: Actions to apply
          items: "{{ steps.fetch.output.rows }}"
          columns:
            - { key: id, title: ID, type: number }
            - { key: action, title: Action, type: string, editable: true }
            - { key: notify, title: Notify, type: boolean, editable: true }
    output: "{{ approval.rows }}"
  - name: report
    type: transform
    output: "{{ steps.apply.output }}"
`;
}

interface ExecutionView {
  status: string;
  error: string | null;
  steps: Record<string, { status: string; output: unknown }>;
}

/** The review workflow, stored under a name of its own. */
async function createReview(page: Page): Promise<{ id: string; name: string }> {
  const name = `review-${randomBytes(4).toString("hex")}`;
  return { id: await createWorkflow(page, reviewWorkflow(name)), name };
}

async function executionOf(page: Page, executionId: string): Promise<ExecutionView> {
  return (await consoleApi<ExecutionView>(page, "GET", `/api/console/executions/${executionId}`)).json;
}

async function endOf(page: Page, executionId: string): Promise<ExecutionView> {
  await expect
    .poll(async () => (await executionOf(page, executionId)).status, { timeout: 20_000 })
    .toMatch(/^(COMPLETED|FAILED)$/);
  return executionOf(page, executionId);
}

describeInBrowser("approvals in the console", () => {
  it(
    "a request appears in the open inbox live; approved with an edited and a removed row, only the kept rows run as edited",
    { timeout: 120_000 },
    async () => {
      const { person, context, page, errors } = await signedIn(service());
      const workflow = await createReview(page);

      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approvals" }).click();
      await page.getByText("Nothing waits for your decision").waitFor();
      // The inbox follows the event stream from now on: the run must start after it is live.
      await page.locator(".live-indicator.live-live").waitFor();
      let loads = 0;
      page.on("load", () => loads++);

      const executionId = await startExecution(page, workflow.id);
      const row = page.getByRole("row", { name: new RegExp(workflow.name) });
      await row.waitFor({ timeout: 20_000 });
      expect(loads).toBe(0);
      expect(await row.textContent()).toContain("Apply 3 actions?");
      expect(await row.textContent()).toContain("3 rows");
      expect(await row.textContent()).toMatch(/in 59 min|in 1 h/);
      await expect.poll(() => page.getByRole("tab", { name: "Pending (1)" }).count()).toBe(1);
      await screenshot(page, "approvals-inbox");

      await row.getByRole("link", { name: workflow.name, exact: true }).click();
      const group = page.getByRole("region", { name: "Actions to apply" });
      await group.waitFor();
      await page.getByText("Apply 3 actions?").waitFor();
      expect(await page.getByRole("link", { name: executionId }).getAttribute("href")).toBe(
        `/console/executions/${executionId}`,
      );
      // ID is not editable; Action and Notify are.
      expect(await group.getByLabel("ID, row 1").count()).toBe(0);
      await group.getByLabel("Action, row 1").fill("archive");
      await group.getByRole("button", { name: "Remove row 2" }).click();
      await group.getByText("2 of 3 rows will run · 1 cell edited").waitFor();
      await page.getByText("Approving runs step apply with your changes only: 2 of 3 rows").waitFor();
      // Restoring and removing again leaves the same edit: a removed row is only set aside.
      await group.getByRole("button", { name: "Restore row 2" }).click();
      await group.getByText("3 of 3 rows will run").waitFor();
      await group.getByRole("button", { name: "Remove row 2" }).click();
      await page.getByLabel(/^Comment/).fill("archive the first, keep the third");
      await screenshot(page, "approval-detail");

      await page.getByRole("button", { name: "Approve", exact: true }).click();
      await page.getByRole("heading", { name: "Approved" }).waitFor();
      await page.getByText("Decided by you").waitFor();
      expect(await page.getByRole("link", { name: "Open the execution" }).getAttribute("href")).toBe(
        `/console/executions/${executionId}`,
      );
      await page.getByText("was given the edited rows only: 2 rows").waitFor();

      const done = await endOf(page, executionId);
      const kept = [
        { id: 1, action: "archive", notify: true },
        { id: 3, action: "escalate", notify: true },
      ];
      expect(done.status).toBe("COMPLETED");
      expect(done.steps.apply!.output).toEqual(kept);
      expect(done.steps.report!.output).toEqual(kept);
      // The outcome follows the run live, up to its end.
      await page.locator(".outcome .badge.status-completed").waitFor({ timeout: 10_000 });
      await screenshot(page, "approval-approved");

      const approvals = await consoleApi<{ approvals: { id: string; status: string }[] }>(
        page,
        "GET",
        "/api/console/approvals?status=APPROVED",
      );
      expect(approvals.json.approvals).toHaveLength(1);
      const record = await consoleApi<{ comment: string; editedItems: unknown; decidedBy: string }>(
        page,
        "GET",
        `/api/console/approvals/${approvals.json.approvals[0]!.id}`,
      );
      expect(record.json).toMatchObject({
        comment: "archive the first, keep the third",
        editedItems: { rows: kept },
        decidedBy: person.id,
      });

      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it("shows a request made while the inbox's event stream was still connecting", { timeout: 90_000 }, async () => {
    const { context, page, errors } = await signedIn(service());
    const workflow = await createReview(page);
    // The stream starts at the next event: one held until the request exists never carries the request's own.
    const release = await holdOwnerStream(page);

    await page.goto("/console/approvals");
    await page.getByText("Nothing waits for your decision").waitFor();
    const executionId = await startExecution(page, workflow.id);
    await eventPublished(page, executionId, "step_awaiting_approval");
    expect(await page.locator(".live-indicator.live-live").count()).toBe(0);

    release();
    await page.locator(".live-indicator.live-live").waitFor();
    await page
      .getByRole("row", { name: new RegExp(workflow.name) })
      .getByRole("link", { name: workflow.name, exact: true })
      .waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it(
    "rejected with a reason after a confirmation, the execution fails naming it; decided ones are in the history",
    { timeout: 120_000 },
    async () => {
      const { context, page, errors } = await signedIn(service());
      const workflow = await createReview(page);
      const executionId = await startExecution(page, workflow.id);

      await page.goto("/console/approvals");
      const row = page.getByRole("row", { name: new RegExp(workflow.name) });
      await row.getByRole("link", { name: workflow.name, exact: true }).click({ timeout: 20_000 });
      await page.getByRole("region", { name: "Actions to apply" }).waitFor();
      // Approving untouched rows would send no editedItems; rejecting takes a reason in the confirmation.
      await page.getByText("Approving runs step apply with the rows as requested.").waitFor();
      await page.getByRole("button", { name: "Reject…" }).click();
      const confirm = page.getByRole("dialog", { name: "Reject this request?" });
      await confirm.getByText("will not run").waitFor();
      // Cancelling decides nothing.
      await confirm.getByRole("button", { name: "Cancel" }).click();
      await expect.poll(() => confirm.isVisible()).toBe(false);
      await page.getByRole("button", { name: "Reject…" }).click();
      await confirm.getByLabel(/^Reason/).fill("not this week");
      await confirm.getByRole("button", { name: "Reject", exact: true }).click();
      await page.getByRole("heading", { name: "Rejected" }).waitFor();
      await page.getByText("not this week", { exact: true }).waitFor();

      const done = await endOf(page, executionId);
      expect(done.status).toBe("FAILED");
      expect(done.error).toMatch(/approval \S+ rejected: not this week/);
      expect(done.steps.apply!.status).toBe("REJECTED");
      expect(done.steps.report!.status).toBe("SKIPPED");
      await page.locator(".outcome .badge.status-failed").waitFor({ timeout: 10_000 });

      await page.getByRole("link", { name: "← Approvals" }).click();
      await page.getByText("Nothing waits for your decision").waitFor();
      await page.getByRole("tab", { name: "History" }).click();
      const decided = page.getByRole("row", { name: new RegExp(workflow.name) });
      await expect.poll(() => decided.textContent()).toContain("REJECTED");
      expect(await decided.textContent()).toContain("not this week");
      await page.getByLabel("Show").selectOption("APPROVED");
      await page.getByText("No approvals here yet").waitFor();

      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it(
    "a refused decision is told in words: a 400 at the cell it names, a 409 when someone decided first",
    { timeout: 120_000 },
    async () => {
      const { context, page, errors } = await signedIn(service());
      const workflow = await createReview(page);
      const executionId = await startExecution(page, workflow.id);
      // Without its event stream the page cannot learn of a decision made elsewhere: its own decision finds out.
      await page.route(/\/api\/console\/executions\/[^/]+\/events/, (route) => route.fulfill({ status: 204 }));

      await page.goto("/console/approvals");
      await page
        .getByRole("row", { name: new RegExp(workflow.name) })
        .getByRole("link", { name: workflow.name, exact: true })
        .click({ timeout: 20_000 });
      const group = page.getByRole("region", { name: "Actions to apply" });
      await group.getByLabel("Action, row 1").fill("archive");
      await group.getByRole("button", { name: "Remove row 2" }).click();
      // A row the service refuses: the second row sent (the third on the page) gets a value of the wrong type.
      await page.route(
        "**/approve",
        async (route) => {
          const body = JSON.parse(route.request().postData() ?? "{}") as {
            editedItems: { rows: Record<string, unknown>[] };
          };
          body.editedItems.rows[1]!.notify = "yes";
          await route.continue({ postData: JSON.stringify(body) });
        },
        { times: 1 },
      );
      await page.getByRole("button", { name: "Approve", exact: true }).click();
      await page.getByText("The service refused the edited rows; nothing was decided.").waitFor();
      await page.getByText("Actions to apply, row 3, Notify: must be a boolean").waitFor();
      expect(await group.getByLabel("Notify, row 3").getAttribute("aria-invalid")).toBe("true");
      // A full-page picture of a scrolled page draws the sticky top bar where the view was.
      await page.evaluate("window.scrollTo(0, 0)");
      await screenshot(page, "approval-refused");

      const [pending] = (
        await consoleApi<{ approvals: { id: string; executionId: string }[] }>(
          page,
          "GET",
          "/api/console/approvals?status=PENDING",
        )
      ).json.approvals;
      expect(pending?.executionId).toBe(executionId);
      expect(
        (await consoleApi(page, "POST", `/api/console/approvals/${pending!.id}/reject`, { comment: "decided first" }))
          .status,
      ).toBe(200);
      await page.getByRole("button", { name: "Reject…" }).click();
      await page
        .getByRole("dialog", { name: "Reject this request?" })
        .getByRole("button", { name: "Reject", exact: true })
        .click();
      await page.getByText("Someone decided this request before you").waitFor();
      await page.getByRole("heading", { name: "Rejected" }).waitFor();
      await page.getByText("decided first", { exact: true }).waitFor();
      await page.evaluate("window.scrollTo(0, 0)");
      await screenshot(page, "approval-decided-first");

      expect(unexpectedErrors(errors, [400, 409])).toEqual([]);
      await context.close();
    },
  );

  it(
    "on a phone the inbox is cards and the review fits the screen; a decision made elsewhere shows live",
    { timeout: 120_000 },
    async () => {
      const { context, page, errors } = await signedIn(service(), {
        viewport: { width: 375, height: 812 },
        colorScheme: "dark",
      });
      const workflow = await createReview(page);
      const executionId = await startExecution(page, workflow.id);

      await page.goto("/console/approvals");
      const card = page.getByRole("link", { name: new RegExp(workflow.name) });
      await card.waitFor({ timeout: 20_000 });
      expect(await page.locator("table").count()).toBe(0);
      expect(await card.textContent()).toContain("Apply 3 actions?");
      const fits = () => page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth");
      expect(await fits()).toBe(true);
      await screenshot(page, "approvals-phone");

      await card.click();
      const group = page.getByRole("region", { name: "Actions to apply" });
      await group.getByLabel("Action, row 3").fill("defer");
      await group.getByLabel("Notify, row 3").uncheck();
      await group.getByText("3 of 3 rows will run · 2 cells edited").waitFor();
      expect(await fits()).toBe(true);
      await page.evaluate("window.scrollTo(0, 0)");
      await screenshot(page, "approval-detail-phone");

      const [pending] = (
        await consoleApi<{ approvals: { id: string; executionId: string }[] }>(
          page,
          "GET",
          "/api/console/approvals?status=PENDING",
        )
      ).json.approvals;
      expect(pending?.executionId).toBe(executionId);
      expect(
        (
          await consoleApi(page, "POST", `/api/console/approvals/${pending!.id}/reject`, {
            comment: "decided on another device",
          })
        ).status,
      ).toBe(200);
      await page.getByRole("heading", { name: "Rejected" }).waitFor({ timeout: 20_000 });
      await page.getByText("decided on another device", { exact: true }).waitFor();
      expect(await group.getByRole("button", { name: "Remove row 1" }).count()).toBe(0);

      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it("keeps a step test's badge drawn on its hovered row in the inbox, readable in both themes", async () => {
    const { context, page, errors } = await signedIn(service());
    // A gated step tested alone: its approval is a step test's.
    const name = `gated-${randomBytes(4).toString("hex")}`;
    const workflowId = await createWorkflow(
      page,
      `name: ${name}
steps:
  - { name: fetch, type: transform, output: 1 }
  - name: apply
    type: transform
    output: 2
    manual_approval: { message: "Apply it?", timeout: 3600 }
`,
    );
    const started = await consoleApi<{ executionId: string }>(
      page,
      "POST",
      `/api/console/workflows/${workflowId}/step-tests`,
      { step: "apply" },
    );
    expect(started.status, JSON.stringify(started.json)).toBe(202);
    await page.goto("/console/approvals?triggerSource=step_test");
    const row = page.locator("tbody tr", { hasText: name });
    const badge = row.locator(".badge", { hasText: "step test" });
    await badge.waitFor({ timeout: 20_000 });
    // The pointer on the row's step cell, away from its link: the row is drawn hovered.
    await row.getByText("apply", { exact: true }).hover();
    const fill = (el: typeof row) =>
      el.evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).backgroundColor);
    for (const theme of ["light", "dark"] as const) {
      await page.evaluate(`document.documentElement.dataset.theme = "${theme}"`);
      await screenshot(page, `approvals-step-test-hover-${theme}`, { fullPage: false });
      // The badge's own fill differs from the hovered row's: its pill stays drawn.
      await expect
        .poll(async () => [await fill(row), await fill(badge)], { timeout: 5_000 })
        .toSatisfy(([r, b]) => r !== b);
      expect(await axeAudit(page), theme).toEqual([]);
    }
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });
});
