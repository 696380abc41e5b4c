import { expect, it } from "vitest";
import { axeAudit } from "./axe";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  useSharedConsoleService,
  whenCanvasStill,
} from "./support";

const { service } = useSharedConsoleService();

const PIPELINE = (name: string) => `name: ${name}
steps:
  - { name: fetch, type: transform, output: 20 }
  - { name: double, type: transform, output: "{{ steps.fetch.output + 1 }}" }
`;

/** A code step then a message, to build with no run: the first step's output is pinned. */
const LIST = (name: string) => `name: ${name}
steps:
  - name: fetch
    type: code
    language: javascript
    code: |
      return { items: [{ id: "r1" }] };
  - { name: announce, type: transform, output: "nothing yet" }
`;

interface TestRun {
  status: string;
  steps: Record<string, { output: unknown; pinned: boolean }>;
}

describeInBrowser("pinned data", () => {
  it(
    "a newcomer types a pin for the first step and tests the next one with no run before",
    { timeout: 120_000 },
    async () => {
      const { context, page, errors } = await signedIn(service(), { viewport: { width: 1440, height: 1000 } });
      const workflowId = await createWorkflow(page, PIPELINE(`pins-${Date.now()}`));
      await page.goto(`/console/workflows/${workflowId}`);
      const fetchNode = page.locator('.react-flow__node[data-id="fetch"]');
      await fetchNode.waitFor();
      await whenCanvasStill(page);
      expect(await fetchNode.getByRole("img", { name: "pinned" }).count()).toBe(0);

      await fetchNode.click();
      const panel = page.getByRole("complementary", { name: "Selected step" });
      const pins = panel.getByRole("region", { name: "Pinned data" });
      await pins.getByRole("button", { name: "Pin data" }).click();
      const box = pins.getByRole("textbox", { name: /^Output of fetch/ });
      await box.fill("{ rows: 1 }");
      await pins.getByRole("button", { name: "Save pin" }).click();
      const mistake = pins.getByRole("alert");
      await expect.poll(() => mistake.textContent()).toContain("Not JSON");
      expect(await box.getAttribute("aria-invalid")).toBe("true");
      await screenshot(page, "pins-typed-mistake");
      expect(await axeAudit(page)).toEqual([]);

      await box.fill("5");
      await pins.getByRole("button", { name: "Save pin" }).click();
      await expect.poll(() => pins.getByLabel("Pinned output of fetch").textContent()).toBe("5");
      await fetchNode.getByRole("img", { name: "pinned" }).waitFor();
      await screenshot(page, "pins-pinned");
      expect(await axeAudit(page)).toEqual([]);

      // The next step, tested with no earlier run: the pin is its context.
      await page.locator('.react-flow__node[data-id="double"]').click();
      const test = panel.getByRole("region", { name: "Test this step" });
      expect(await test.getByLabel("Earlier outputs from").inputValue()).toBe("");
      // The pin is a known output to map from, with no run at all.
      await panel
        .getByRole("region", { name: "Outputs of earlier steps" })
        .getByRole("button", { name: "Insert steps.fetch.output" })
        .waitFor();
      await test.getByRole("button", { name: "Run this step" }).click();
      const result = test.getByRole("status", { name: "Step test result" });
      await expect.poll(() => result.getByLabel("Output of double").textContent(), { timeout: 30_000 }).toBe("6");
      await result.getByText("Took the pinned output of fetch.").waitFor();
      await result.getByRole("button", { name: "Pin this output" }).scrollIntoViewIfNeeded();
      await screenshot(page, "pins-step-test");
      expect(await axeAudit(page)).toEqual([]);

      const listed = await consoleApi<{ items: Array<{ id: string }> }>(
        page,
        "GET",
        `/api/console/executions?workflowId=${workflowId}&triggerSource=step_test`,
      );
      expect(listed.json.items).toHaveLength(1);
      const run = await consoleApi<TestRun>(page, "GET", `/api/console/executions/${listed.json.items[0]!.id}`);
      expect(run.json.steps.fetch).toMatchObject({ output: 5, pinned: true });

      // Pinning the test's output marks that step too; unpinning the first removes its mark.
      await result.getByRole("button", { name: "Pin this output" }).click();
      await page.locator('.react-flow__node[data-id="double"]').getByRole("img", { name: "pinned" }).waitFor();
      await fetchNode.click();
      await pins.getByRole("button", { name: "Unpin" }).click();
      await pins.getByRole("button", { name: "Pin data" }).waitFor();
      await expect.poll(() => fetchNode.getByRole("img", { name: "pinned" }).count()).toBe(0);
      const detail = await consoleApi<{ pins: Record<string, { output: unknown; from: string | null }> }>(
        page,
        "GET",
        `/api/console/workflows/${workflowId}`,
      );
      expect(detail.json.pins).toEqual({
        double: expect.objectContaining({ output: 6, from: listed.json.items[0]!.id }),
      });
      await screenshot(page, "pins-after-unpin");

      // The test run's page says which step was pinned, and pins a step's output from there too.
      const testId = listed.json.items[0]!.id;
      await page.goto(`/console/executions/${testId}?steps=list`);
      await page.getByRole("heading", { name: `Execution ${testId}` }).waitFor();
      const row = page.getByRole("row").filter({ has: page.getByRole("button", { name: "fetch", exact: true }) });
      expect(await row.getByText("pinned", { exact: true }).count()).toBe(1);
      await page.getByRole("button", { name: "fetch", exact: true }).click();
      const fetched = page.getByRole("region", { name: "Step fetch" });
      await fetched.getByText("pinned", { exact: true }).waitFor();
      await fetched.getByRole("button", { name: "Pin this output" }).click();
      await fetched.getByRole("status").filter({ hasText: "Pinned to fetch." }).waitFor();
      await screenshot(page, "pins-execution-step");
      expect(await axeAudit(page)).toEqual([]);
      const after = await consoleApi<{ pins: Record<string, { output: unknown; from: string | null }> }>(
        page,
        "GET",
        `/api/console/workflows/${workflowId}`,
      );
      expect(after.json.pins.fetch).toMatchObject({ output: 5, from: testId });
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it(
    "the build loop with no run at all: a typed pin, a field of it mapped into the next step, tested, saved and run",
    { timeout: 120_000 },
    async () => {
      const { context, page, errors } = await signedIn(service(), { viewport: { width: 1440, height: 1000 } });
      const workflowId = await createWorkflow(page, LIST(`pins-loop-${Date.now()}`));
      await page.goto(`/console/workflows/${workflowId}`);
      const fetchNode = page.locator('.react-flow__node[data-id="fetch"]');
      await fetchNode.waitFor();
      await whenCanvasStill(page);
      await fetchNode.click();
      const panel = page.getByRole("complementary", { name: "Selected step" });
      const pins = panel.getByRole("region", { name: "Pinned data" });
      await pins.getByRole("button", { name: "Pin data" }).click();
      await pins.getByRole("textbox", { name: /^Output of fetch/ }).fill('{"items": [{"id": "p1"}]}');
      await pins.getByRole("button", { name: "Save pin" }).click();
      await fetchNode.getByRole("img", { name: "pinned" }).waitFor();

      // Map the pinned field into the next step's output, then test that step on the pin.
      await page.locator('.react-flow__node[data-id="announce"]').click();
      await panel.getByRole("heading", { name: "announce" }).waitFor();
      const output = panel.getByRole("textbox", { name: /^output/ });
      await output.fill("First: ");
      await output.press("End");
      await panel
        .getByRole("region", { name: "Outputs of earlier steps" })
        .getByRole("button", { name: "Insert steps.fetch.output.items[0].id", exact: true })
        .click();
      await expect.poll(() => output.inputValue()).toBe("First: {{ steps.fetch.output.items[0].id }}");
      const test = panel.getByRole("region", { name: "Test this step" });
      await test.getByRole("button", { name: "Run this step" }).click();
      await expect
        .poll(() => test.getByLabel("Output of announce").textContent(), { timeout: 30_000 })
        .toBe('"First: p1"');
      await test.getByLabel("Output of announce").scrollIntoViewIfNeeded();
      await screenshot(page, "pins-loop-tested");
      expect(await axeAudit(page)).toEqual([]);

      // Saved and run for real: the pin is not used, the code step runs.
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await expect.poll(() => page.getByRole("status").filter({ hasText: "unsaved" }).count()).toBe(0);
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Run", exact: true }).click();
      await page.waitForURL((url) => url.pathname.startsWith("/console/executions/"));
      const runId = new URL(page.url()).pathname.split("/").at(-1)!;
      const ran = () =>
        consoleApi<{ status: string; output: unknown }>(page, "GET", `/api/console/executions/${runId}`);
      await expect.poll(async () => (await ran()).json.status, { timeout: 30_000 }).toBe("COMPLETED");
      expect((await ran()).json.output).toBe("First: r1");
      expect(errors).toEqual([]);
      await context.close();
    },
  );
});
