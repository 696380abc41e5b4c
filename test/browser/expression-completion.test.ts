import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { axeAudit } from "./axe";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

/** Types `text` on a new line after the cursor's, as written: the indentation the editor gives a new line replaced. */
async function newLine(page: Page, text: string): Promise<void> {
  await page.keyboard.press("End");
  await page.keyboard.press("Enter");
  await page.keyboard.press("Shift+Home");
  await page.keyboard.type(text);
}

const WORKFLOW = `name: completion
variables:
  ticket_id: { type: string, required: true, description: The ticket to classify }
  limit: { type: number, default: 3 }
steps:
  - { name: fetch, type: transform, output: { rows: [] } }
  - name: each
    type: foreach
    items: "{{ steps.fetch.output.rows }}"
    steps:
      - name: shape
        type: transform
        output: 1
  - { name: later, type: transform, output: 2 }
`;

describeInBrowser("completing the names an expression reads", () => {
  it("offers the variables, the steps that ran before, item, the owner's secrets and JSONata's functions", async () => {
    const { context, page, errors } = await signedIn(service(), { colorScheme: "dark" });
    expect((await consoleApi(page, "PUT", "/api/console/secrets/crm_token", { value: "s3cret" })).status).toBe(200);
    await page.goto("/console/workflows/new");
    const yaml = page.getByRole("textbox", { name: "Workflow YAML" });
    await yaml.click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.insertText(WORKFLOW);
    const options = page.locator(".cm-tooltip-autocomplete li");
    // Each option's name, and what it says beside it.
    const offered = () => options.locator(".cm-completionLabel").allTextContents();
    const details = () => options.locator(".cm-completionDetail").allTextContents();

    // In the foreach's step: the variables, with their types, listed as the editor lists names (alphabetically).
    await page.locator(".cm-line", { hasText: "output: 1" }).click();
    await newLine(page, '        input: "{{ vars.');
    await expect.poll(offered).toEqual(["limit", "ticket_id"]);
    expect(await details()).toEqual(["number", "string, required"]);
    await screenshot(page, "expression-completion-vars-dark");
    expect(await axeAudit(page)).toEqual([]);
    await options.getByText("ticket_id", { exact: true }).click();
    await expect.poll(() => page.locator(".cm-activeLine").textContent()).toBe('        input: "{{ vars.ticket_id"');

    // The steps before it (the foreach's own item's, then the top level's), never a later one; item, in a foreach.
    await page.keyboard.type(" + steps.");
    await expect.poll(offered).toEqual(["fetch"]);
    await page.keyboard.type("fetch.");
    await expect.poll(offered).toEqual(["duration", "error", "output", "status"]);
    await page.keyboard.press("Escape");
    await page.keyboard.type("output + it");
    await expect.poll(offered).toEqual(["item"]);

    // At the top level, after the foreach: no item; the owner's secrets; a function.
    await page.locator(".cm-line", { hasText: "name: later" }).click();
    await newLine(page, '  - { name: last, type: transform, output: "{{ steps.');
    await expect.poll(offered).toEqual(["each", "fetch", "later"]);
    await page.keyboard.press("Escape");
    await page.keyboard.type("later.output & secrets.");
    await expect.poll(offered).toEqual(["crm_token"]);
    await page.keyboard.press("Escape");
    await page.keyboard.type("crm_token & $upp");
    await expect.poll(offered).toEqual(["$uppercase"]);
    expect(await details()).toEqual(["(str)"]);
    await page.keyboard.press("Escape");
    await page.keyboard.type(" & ");
    await page.keyboard.press("Control+Space");
    await expect.poll(offered).toEqual(["execution", "secrets", "steps", "vars"]);
    await screenshot(page, "expression-completion-secrets-dark");

    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows the known value of a step output's path on hover, up to the segment pointed at", async () => {
    const { context, page, errors } = await signedIn(service(), { colorScheme: "light" });
    const workflowId = await createWorkflow(
      page,
      `name: hover-${Date.now()}
steps:
  - { name: fetch, type: transform, output: 1 }
  - name: use
    type: transform
    output: "{{ steps.fetch.output.rows[1].title }}"
`,
    );
    const rows = [{ title: "first" }, { title: "second", tags: Array.from({ length: 30 }, (_, i) => i) }];
    expect(
      (await consoleApi(page, "PUT", `/api/console/workflows/${workflowId}/pins/fetch`, { output: { rows } })).status,
    ).toBe(200);
    await page.goto(`/console/workflows/${workflowId}`);
    const line = page.locator(".cm-line", { hasText: "steps.fetch.output.rows" });
    const hovered = page.locator(".cm-known-value");

    // The pointer goes where the cursor is drawn after the needle's first character: the text's own geometry.
    const text = (await line.textContent())!;
    const pointAt = async (needle: string) => {
      await line.click();
      await page.keyboard.press("End");
      for (let i = text.length - text.indexOf(needle) - 1; i > 0; i--) await page.keyboard.press("ArrowLeft");
      const cursor = (await page.locator(".cm-cursor-primary").boundingBox())!;
      await page.mouse.move(cursor.x + 2, cursor.y + cursor.height / 2);
    };

    await pointAt("title");
    await expect.poll(() => hovered.locator("pre").textContent()).toBe('"second"');
    expect(await hovered.locator(".cm-known-value-title").textContent()).toBe(
      "steps.fetch.output.rows[1].title, as last known",
    );
    await page.mouse.move(0, 0);
    await hovered.waitFor({ state: "detached" });
    await pointAt("rows");
    await expect.poll(() => hovered.locator("pre").textContent()).toMatch(/^\[\n {2}\{\n {4}"title": "first"/);
    expect(await hovered.locator("pre").textContent()).toMatch(/\n… \d+ more lines$/);
    await screenshot(page, "expression-hover-light");
    expect(await axeAudit(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
