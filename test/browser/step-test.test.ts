import { expect, it } from "vitest";
import { axeAudit } from "./axe";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  startExecution,
  untilStatus,
  useSharedConsoleService,
  whenCanvasStill,
} from "./support";

const { service } = useSharedConsoleService();

const PIPELINE = (name: string) => `name: ${name}
variables:
  base: { type: number, default: 20 }
steps:
  - { name: fetch, type: transform, output: "{{ vars.base }}" }
  - { name: double, type: transform, output: "{{ steps.fetch.output + 1 }}" }
  - { name: publish, type: transform, output: "{{ steps.double.output }}" }
  - name: each
    type: foreach
    items: [1, 2]
    steps:
      - { name: inner, type: transform, output: "{{ item }}" }
`;

describeInBrowser("running one step from the editor", () => {
  it(
    "runs an edited step, unsaved, on the outputs of the last run, and shows its output",
    { timeout: 120_000 },
    async () => {
      const { context, page, errors } = await signedIn(service(), { viewport: { width: 1440, height: 1000 } });
      const workflowId = await createWorkflow(page, PIPELINE(`step-test-${Date.now()}`));
      const runId = await startExecution(page, workflowId);
      await untilStatus(page, runId, "COMPLETED");

      await page.goto(`/console/workflows/${workflowId}`);
      await page.locator('.react-flow__node[data-id="double"]').waitFor();
      await whenCanvasStill(page);
      await page.locator('.react-flow__node[data-id="double"]').click();
      const panel = page.getByRole("complementary", { name: "Selected step" });
      // The step changed in the panel, not saved: the test runs the editor's text.
      await panel.getByRole("textbox", { name: /^output/ }).fill("{{ steps.fetch.output * 2 }}");
      await panel.getByRole("textbox", { name: /^output/ }).press("Enter");
      await page.getByRole("status").filter({ hasText: "unsaved" }).waitFor();

      const test = panel.getByRole("region", { name: "Test this step" });
      // The last run is the context by default.
      expect(await test.getByLabel("Earlier outputs from").inputValue()).toBe(runId);
      const pressed = Date.now();
      await test.getByRole("button", { name: "Run this step" }).click();
      const result = test.getByRole("status", { name: "Step test result" });
      await expect.poll(() => result.getByLabel("Output of double").textContent(), { timeout: 30_000 }).toBe("40");
      console.log(`[step test] output shown ${Date.now() - pressed} ms after Run this step was pressed`);
      expect(await result.locator(".badge").first().textContent()).toBe("COMPLETED");
      await screenshot(page, "step-test-editor");
      expect(await axeAudit(page)).toEqual([]);

      // The test is an execution of its own, listed apart; the workflow's run and versions are as they were.
      const listed = await consoleApi<{ items: Array<{ id: string }> }>(
        page,
        "GET",
        `/api/console/executions?workflowId=${workflowId}`,
      );
      expect(listed.json.items.map((e) => e.id)).toEqual([runId]);
      const detail = await consoleApi<{ version: number }>(page, "GET", `/api/console/workflows/${workflowId}`);
      expect(detail.json.version).toBe(1);
      // In a tab of its own: the editor keeps its unsaved text.
      const [run] = await Promise.all([
        context.waitForEvent("page"),
        test.getByRole("link", { name: "Open the test run" }).click(),
      ]);
      await run.getByRole("heading", { name: /^Execution / }).waitFor();
      // In its events, which stream in after the heading.
      await run.getByText("step_test").first().waitFor();
      expect(await page.getByRole("status").filter({ hasText: "unsaved" }).count()).toBe(1);
      // A step inside a foreach runs in the item chosen, its items evaluated anew.
      await page.locator('.react-flow__node[data-id="inner"]').click();
      const nested = panel.getByRole("region", { name: "Test this step" });
      await nested.getByLabel("Item of each (from 0)").fill("1");
      await nested.getByRole("button", { name: "Run this step" }).click();
      const nestedResult = nested.getByRole("status", { name: "Step test result" });
      await expect.poll(() => nestedResult.getByLabel("Output of inner").textContent(), { timeout: 30_000 }).toBe("2");
      await screenshot(page, "step-test-nested");
      expect(await axeAudit(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it(
    "says which step it reads the test had no output of, and how to give it one: here a pin",
    { timeout: 120_000 },
    async () => {
      const { context, page, errors } = await signedIn(service(), { viewport: { width: 1280, height: 800 } });
      const workflowId = await createWorkflow(page, PIPELINE(`step-test-unread-${Date.now()}`));
      await page.goto(`/console/workflows/${workflowId}`);
      await page.locator('.react-flow__node[data-id="double"]').waitFor();
      await whenCanvasStill(page);
      const panel = page.getByRole("complementary", { name: "Selected step" });

      // No run yet: double reads fetch, which the test does not run, so it has nothing to read.
      await page.locator('.react-flow__node[data-id="double"]').click();
      const test = panel.getByRole("region", { name: "Test this step" });
      expect(await test.getByLabel("Earlier outputs from").inputValue()).toBe("");
      await test.getByRole("button", { name: "Run this step" }).click();
      const result = test.getByRole("status", { name: "Step test result" });
      const unread = result.getByText(/^This test had no output of fetch to give double: /);
      await unread.waitFor({ timeout: 30_000 });
      expect(await unread.textContent()).toContain("or pin its output (Pin this output under a test of it).");
      await result.scrollIntoViewIfNeeded();
      await screenshot(page, "step-test-unread");
      expect(await axeAudit(page)).toEqual([]);

      // fetch tested and its output pinned, double's test takes the pin, and says nothing more.
      await page.locator('.react-flow__node[data-id="fetch"]').click();
      const fetchTest = panel.getByRole("region", { name: "Test this step" });
      await fetchTest.getByRole("button", { name: "Run this step" }).click();
      await fetchTest.getByRole("button", { name: "Pin this output" }).click({ timeout: 30_000 });
      await panel.getByRole("button", { name: "Unpin" }).waitFor();
      await page.locator('.react-flow__node[data-id="double"]').click();
      await panel.getByRole("heading", { name: "double" }).waitFor();
      await test.getByRole("button", { name: "Run this step" }).click();
      await expect.poll(() => result.getByLabel("Output of double").textContent(), { timeout: 30_000 }).toBe("21");
      expect(await result.getByText("Took the pinned output of fetch.").count()).toBe(1);
      expect(await unread.count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    },
  );
});
