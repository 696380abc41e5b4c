import { expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { axeAudit } from "./axe";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  startExecution,
  unexpectedErrors,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

describeInBrowser("the run form", () => {
  it("fills its fields from an earlier run's variables, runs with them again, and lists the workflow's runs", async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const { page, errors, context } = await signedIn(service(), { colorScheme });
      try {
        const id = await createWorkflow(
          page,
          [
            `name: refill ${newId().slice(-8).toLowerCase()}`,
            "variables:",
            "  who: { type: string, required: true }",
            "  count: { type: number, default: 3 }",
            "  order: { type: object }",
            "steps:",
            "  - { name: echo, type: transform, output: '{{ vars }}' }",
            "",
          ].join("\n"),
        );
        const order = { id: 42, lines: [{ sku: "k-1", qty: 2 }] };
        const first = await startExecution(page, id, { inputs: { who: "Ada", count: 7, order } });
        await expect
          .poll(
            async () => (await consoleApi<{ status: string }>(page, "GET", `/api/console/executions/${first}`)).json,
          )
          .toMatchObject({ status: "COMPLETED" });

        await page.goto(`/console/workflows/${id}`);
        await page.getByRole("button", { name: "Run", exact: true }).click();
        const dialog = page.getByRole("dialog");
        await expect.poll(() => dialog.getByLabel("who").inputValue()).toBe("");
        await dialog.getByLabel("Fill from a run").selectOption({ index: 1 });
        await expect.poll(() => dialog.getByLabel("who").inputValue()).toBe("Ada");
        expect(await dialog.getByLabel("count").inputValue()).toBe("7");
        expect(JSON.parse(await dialog.getByLabel("order").inputValue())).toEqual(order);
        await dialog.getByRole("status").filter({ hasText: "Filled from the run of" }).waitFor();
        expect(await axeAudit(page)).toEqual([]);
        await screenshot(page, `run-form-filled-${colorScheme}`, { fullPage: false });

        await dialog.getByLabel("who").fill("Grace");
        await dialog.getByRole("button", { name: "Run", exact: true }).click();
        await page.waitForURL(/\/console\/executions\/[^/]+$/);
        const second = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
        expect(second).not.toBe(first);
        await expect
          .poll(async () => (await consoleApi(page, "GET", `/api/console/executions/${second}`)).json)
          .toMatchObject({ status: "COMPLETED", variables: { who: "Grace", count: 7, order } });

        // The editor's Runs lists this workflow's executions, and only those.
        await page.goto(`/console/workflows/${id}`);
        await page.getByRole("button", { name: "More" }).click();
        await page.getByRole("link", { name: "Runs", exact: true }).click();
        await page.waitForURL(/\/console\/executions\?workflowId=/);
        await page.getByRole("link", { name: second }).waitFor();
        expect(await page.getByRole("link", { name: first }).count()).toBe(1);
        expect(await page.locator("tbody tr").count()).toBe(2);
        expect(unexpectedErrors(errors)).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });
});
