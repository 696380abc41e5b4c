import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { axeAudit } from "./axe";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  startExecution,
  unexpectedErrors,
  untilStatus,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

/** `check` throws when `fail` is set; the run then ends there and `publish` never runs. */
const WORKFLOW = (name: string) => `name: ${name}
variables:
  who: { type: string, default: Ada }
  fail: { type: boolean, default: false }
steps:
  - name: greet
    type: code
    language: javascript
    code: |
      return { text: "Hello, " + vars.who, kept: "the same in both" };
  - name: each
    type: foreach
    items: [1, 2]
    steps:
      - { name: inner, type: transform, output: "{{ item }}" }
  - name: check
    type: code
    language: javascript
    code: |
      if (vars.fail) throw new Error("the check failed");
      return "checked";
  - { name: publish, type: transform, output: "{{ steps.greet.output.text }}" }
`;

/** The visible step rows, each as "path: status A | status B". */
async function rowsShown(page: Page): Promise<string[]> {
  const rows = page.getByRole("table", { name: "Steps compared" }).locator("tbody tr[data-step-path]");
  return rows.evaluateAll((trs) =>
    trs.map((tr) => {
      const cells = [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim() ?? "");
      return `${tr.getAttribute("data-step-path")}: ${cells[0]} | ${cells[1]}`;
    }),
  );
}

describeInBrowser("comparing two runs", () => {
  it(
    "lines up two runs of a workflow step by step, from the execution page and the list",
    { timeout: 150_000 },
    async () => {
      const { context, page, errors } = await signedIn(service(), { viewport: { width: 1440, height: 1000 } });
      const name = `compare-${Date.now()}`;
      const workflowId = await createWorkflow(page, WORKFLOW(name));
      const a = await startExecution(page, workflowId, { inputs: { who: "Ada" } });
      await untilStatus(page, a, "COMPLETED");
      const b = await startExecution(page, workflowId, { inputs: { who: "Grace", fail: true } });
      await untilStatus(page, b, "FAILED");

      // From B's page: the run before it is offered first.
      await page.goto(`/console/executions/${b}`);
      const choice = page.getByLabel("Compare with…");
      await expect.poll(() => choice.inputValue(), { timeout: 10_000 }).toBe(a);
      await screenshot(page, "compare-runs-execution-page");
      await page.getByRole("link", { name: "Compare", exact: true }).click();
      await page.waitForURL((url) => url.pathname === "/console/executions/compare");
      expect(new URL(page.url()).searchParams.get("a")).toBe(a);
      expect(new URL(page.url()).searchParams.get("b")).toBe(b);

      const heads = page.getByRole("region", { name: "The two runs" });
      await heads.getByRole("link", { name: a }).waitFor();
      await heads.getByRole("link", { name: b }).waitFor();
      expect(await heads.locator(".badge").allTextContents()).toEqual(["COMPLETED", "FAILED"]);

      expect(await rowsShown(page)).toEqual([
        "greet: COMPLETED | COMPLETED",
        "each: COMPLETED | COMPLETED",
        "each[0].inner: COMPLETED | COMPLETED",
        "each[1].inner: COMPLETED | COMPLETED",
        "check: COMPLETED | FAILED",
        "publish: COMPLETED | not run in B",
      ]);
      const differing = page.locator("tr.differs");
      expect(await differing.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-step-path")))).toEqual([
        "greet",
        "check",
        "publish",
      ]);
      // greet's output: the changed field removed and added, the rest unchanged.
      const greet = page.getByRole("region", { name: "Output of greet, A to B" });
      expect(await greet.locator(".diff-remove .diff-text").allTextContents()).toEqual(['  "text": "Hello, Ada",']);
      expect(await greet.locator(".diff-add .diff-text").allTextContents()).toEqual(['  "text": "Hello, Grace",']);
      expect(await greet.locator(".diff-same .diff-text").allTextContents()).toContain('  "kept": "the same in both"');
      await page.getByRole("note", { name: "Error in B" }).getByText("the check failed").waitFor();
      await page.getByRole("status").filter({ hasText: "3 steps differ" }).waitFor();
      await screenshot(page, "compare-runs");
      expect(await axeAudit(page)).toEqual([]);

      await page.getByLabel("Only differences").check();
      expect(await rowsShown(page)).toEqual([
        "greet: COMPLETED | COMPLETED",
        "check: COMPLETED | FAILED",
        "publish: COMPLETED | not run in B",
      ]);
      await screenshot(page, "compare-runs-only-differences");
      expect(await axeAudit(page)).toEqual([]);
      await page.getByRole("button", { name: "Switch to dark theme" }).click();
      await page.getByRole("button", { name: "Switch to light theme" }).waitFor();
      await screenshot(page, "compare-runs-dark");
      expect(await axeAudit(page)).toEqual([]);
      await page.getByRole("button", { name: "Switch to light theme" }).click();

      // From the list: two rows ticked, the older one is A.
      await page.goto(`/console/executions?workflowId=${workflowId}`);
      const compare = page.getByRole("button", { name: /^Compare/ });
      expect(await compare.isDisabled()).toBe(true);
      await page.getByLabel(`Pick ${b} to compare`).check();
      await page.getByLabel(`Pick ${a} to compare`).check();
      await screenshot(page, "compare-runs-list");
      await compare.click();
      await page.waitForURL((url) => url.pathname === "/console/executions/compare");
      expect(new URL(page.url()).searchParams.get("a")).toBe(a);
      expect(new URL(page.url()).searchParams.get("b")).toBe(b);
      await page.getByRole("table", { name: "Steps compared" }).waitFor();
      expect(await page.getByRole("note").filter({ hasText: "different versions" }).count()).toBe(0);

      // A run of a later version: said so, with the way to the versions' diff.
      const v2 = WORKFLOW(name).replace("the same in both", "changed in v2");
      expect((await consoleApi(page, "PUT", `/api/console/workflows/${workflowId}`, { yaml: v2 })).status).toBe(200);
      const c = await startExecution(page, workflowId, { inputs: { who: "Ada" } });
      await untilStatus(page, c, "COMPLETED");
      await page.goto(`/console/executions/compare?a=${a}&b=${c}`);
      const versions = page.getByRole("note").filter({ hasText: "A ran v1, B ran v2" });
      await versions.waitFor();
      expect(await versions.getByRole("link").getAttribute("href")).toBe(`/console/workflows/${workflowId}/versions`);
      const kept = page.getByRole("region", { name: "Output of greet, A to B" });
      expect(await kept.locator(".diff-add .diff-text").allTextContents()).toEqual(['  "kept": "changed in v2"']);
      await screenshot(page, "compare-runs-versions");

      // A run of another workflow is refused in words; an unknown id is the usual not-found state.
      const otherId = await createWorkflow(page, WORKFLOW(`compare-other-${Date.now()}`));
      const other = await startExecution(page, otherId, { inputs: {} });
      await untilStatus(page, other, "COMPLETED");
      await page.goto(`/console/executions/compare?a=${a}&b=${other}`);
      await page.getByRole("alert").getByText("These runs cannot be compared").waitFor();
      await page
        .getByRole("alert")
        .getByText(/only two runs of the same workflow line up/)
        .waitFor();
      expect(await page.getByRole("table", { name: "Steps compared" }).count()).toBe(0);
      await screenshot(page, "compare-runs-other-workflow");
      expect(await axeAudit(page)).toEqual([]);

      await page.goto("/console/executions/compare");
      await page.getByText("Choose two runs to compare").waitFor();
      await screenshot(page, "compare-runs-none-chosen");
      expect(await axeAudit(page)).toEqual([]);

      await page.goto(`/console/executions/compare?a=${a}&b=no-such-run`);
      await page.getByRole("alert").getByText("It may have been deleted, or it is not shared with you.").waitFor();
      await screenshot(page, "compare-runs-not-found");
      expect(await axeAudit(page)).toEqual([]);
      expect(unexpectedErrors(errors, [404])).toEqual([]);
      await context.close();
    },
  );
});
