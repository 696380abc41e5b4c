import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  startExecution,
  untilStatus,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

const unique = () => randomBytes(4).toString("hex");

/** expect.poll with a bound fit for a service under test on a busy machine. */
const poll = <T>(read: () => T | Promise<T>, timeout = 10_000) => expect.poll(read, { timeout, interval: 50 });

/**
 * What has the focus, as a person would name it: `tag[role]: label` (aria-label, or its text), looking into shadow
 * roots (the editor's). Evaluated from a string: the tests' tsconfig has no DOM types.
 */
function focused(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    if (!el || el === document.body) return "body";
    const own = el.labels && el.labels[0] ? el.labels[0].textContent : "";
    const label = el.getAttribute("aria-label") || own || (el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 80);
    const role = el.getAttribute("role");
    return el.tagName.toLowerCase() + (role ? "[" + role + "]" : "") + ": " + label;
  })()`);
}

/**
 * Presses Tab until the focus is on what `target` matches, as a keyboard user does: answers how
 * many Tabs it took (failing, with the stops seen, past `max`).
 */
async function tabTo(page: Page, target: RegExp, max = 40, trail?: string[]): Promise<number> {
  const seen: string[] = trail ?? [];
  for (let tabs = 1; tabs <= max; tabs++) {
    await page.keyboard.press("Tab");
    const now = await focused(page);
    seen.push(now.slice(0, 60));
    if (target.test(now)) return tabs;
  }
  throw new Error(`${target} not reached in ${max} Tabs; the stops were:\n${seen.join("\n")}`);
}

/** The editor's text, as CodeMirror holds it (the lines it draws: the tests' files are short). */
const editorText = async (page: Page) => (await page.locator(".cm-content .cm-line").allTextContents()).join("\n");

const REVIEW = (name: string) => `name: ${name}
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
`;

describeInBrowser("the console with a keyboard only", () => {
  it("starts every page with a skip link to its content, which a page reached by a link already has the focus in", async () => {
    const { context, page } = await signedIn(service());
    for (const path of [
      "/console/workflows",
      "/console/executions",
      "/console/approvals",
      "/console/keys",
      "/console/secrets",
      "/console/usage",
    ]) {
      await page.goto(path);
      await page.locator("main h1").first().waitFor();
      expect(await tabTo(page, /Skip to the content/, 1), path).toBe(1);
      await page.keyboard.press("Enter");
      expect(await focused(page), path).toMatch(/^main/);
    }
    // A link followed from the frame leaves the focus at the new page's content: the next Tab is in it.
    await page.goto("/console/workflows");
    await page.locator("main h1").first().waitFor();
    await tabTo(page, /Skip to the content/, 1);
    await screenshot(page, "skip-link");
    await tabTo(page, /^a: API keys/);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    expect(await focused(page)).toMatch(/^main/);
    await context.close();
  });

  it(
    "runs a workflow from the list: to its editor, Run, the run form, the execution",
    { timeout: 90_000 },
    async () => {
      const { context, page, errors } = await signedIn(service());
      const name = `keys-run-${unique()}`;
      await createWorkflow(
        page,
        `name: ${name}\nvariables:\n  who: { type: string, default: Ada }\nsteps:\n  - { name: greet, type: transform, output: "hello {{ vars.who }}" }\n`,
      );
      await page.goto("/console/workflows");
      await page.getByRole("link", { name, exact: true }).waitFor();

      const trail: string[] = [];
      let tabs = await tabTo(page, /Skip to the content/, 40, trail);
      await page.keyboard.press("Enter");
      tabs += await tabTo(page, new RegExp(`^a: ${name}$`), 40, trail);
      await page.keyboard.press("Enter");
      await page.locator(".cm-content").waitFor();
      tabs += await tabTo(page, /^button: Run$/, 40, trail);
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: `Run ${name}` });
      await dialog.waitFor();
      tabs += await tabTo(page, /^button: Run$/, 40, trail);
      await page.keyboard.press("Enter");
      await page.waitForURL(/\/console\/executions\/[^/]+$/);
      const id = new URL(page.url()).pathname.split("/").pop()!;
      await untilStatus(page, id, "COMPLETED", 20_000);
      console.log(`[keyboard] running a workflow from the list took ${tabs} Tabs:\n  ${trail.join("\n  ")}`);
      expect(tabs).toBeLessThanOrEqual(14);
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it("approves a request from the inbox, past its rows with the page's skip link", { timeout: 90_000 }, async () => {
    const { context, page, errors } = await signedIn(service());
    const name = `keys-review-${unique()}`;
    const executionId = await startExecution(page, await createWorkflow(page, REVIEW(name)));
    await page.goto("/console/approvals");
    await page.getByRole("link", { name, exact: true }).waitFor({ timeout: 20_000 });

    const trail: string[] = [];
    let tabs = await tabTo(page, /Skip to the content/, 40, trail);
    await page.keyboard.press("Enter");
    tabs += await tabTo(page, new RegExp(`^a: ${name}$`), 40, trail);
    await page.keyboard.press("Enter");
    await page.getByRole("region", { name: "Actions to apply" }).waitFor();
    tabs += await tabTo(page, /Skip to your decision/, 40, trail);
    await screenshot(page, "approval-skip-link");
    await page.keyboard.press("Enter");
    expect(await focused(page)).toMatch(/^textarea/);
    await page.keyboard.type("fine by me");
    tabs += await tabTo(page, /^button: Approve$/, 40, trail);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Approved" }).waitFor();
    console.log(`[keyboard] approving a request from the inbox took ${tabs} Tabs:\n  ${trail.join("\n  ")}`);
    expect(tabs).toBeLessThanOrEqual(10);
    await untilStatus(page, executionId, "COMPLETED", 20_000);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("leaves the YAML editor with Tab when it came in with Tab, says how on screen, and Esc then Tab leaves it after editing", async () => {
    const { context, page, errors } = await signedIn(service(), { colorScheme: "dark" });
    const name = `keys-editor-${unique()}`;
    const yaml = `name: ${name}\nsteps:\n  - name: first\n    type: transform\n    output: one\n  - name: second\n    type: transform\n    output: two\n`;
    const id = await createWorkflow(page, yaml);
    await page.goto(`/console/workflows/${id}`);
    await page.locator(".cm-content").waitFor();
    await page.getByRole("button", { name: "Save" }).focus();
    const hint = page.locator(".cm-tab-hint");
    expect(await hint.isVisible()).toBe(false);

    // Tabbing past Save: into the editor, which says what Tab does there, and on out of it; the text is untouched.
    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatch(/^div\[textbox\]: Workflow YAML/);
    await poll(() => hint.isVisible()).toBe(true);
    expect(await hint.textContent()).toContain("Tab moves on");
    await screenshot(page, "editor-tab-hint-dark");
    for (let i = 0; i < 10; i++) await page.keyboard.press("Tab");
    expect(await focused(page)).not.toMatch(/Workflow YAML/);
    expect(await editorText(page)).toBe(yaml);
    await poll(() => hint.isVisible()).toBe(false);

    // Back in (Shift+Tab until there), editing: Tab indents; Esc then Tab leaves, as the hint says.
    await page.locator(".cm-line", { hasText: "output: one" }).click();
    await page.keyboard.press("End");
    await poll(() => hint.textContent()).toContain("Esc then Tab");
    await page.keyboard.press("Enter");
    await page.keyboard.type("# note");
    await page.keyboard.press("Home");
    await page.keyboard.press("Tab");
    await poll(() => editorText(page)).toContain("\n      # note\n");
    await page.keyboard.press("Escape");
    await page.keyboard.press("Tab");
    expect(await focused(page)).not.toMatch(/Workflow YAML/);
    expect(await editorText(page)).toContain("\n      # note\n");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("saves with Ctrl+S what a step's field holds unleft; undoes with Ctrl+Z a step deleted on the canvas", async () => {
    const { context, page, errors } = await signedIn(service());
    const id = await createWorkflow(
      page,
      `name: keys-save-${unique()}\nsteps:\n  - { name: first, type: transform, output: one }\n  - { name: second, type: transform, output: two }\n`,
    );
    const stored = async () =>
      (await consoleApi<{ version: number; yaml: string }>(page, "GET", `/api/console/workflows/${id}`)).json;
    await page.goto(`/console/workflows/${id}`);
    const first = page.locator('.react-flow__node[data-id="first"]');
    await first.waitFor();
    await first.click();
    const panel = page.getByRole("complementary", { name: "Selected step" });
    const description = panel.getByLabel("description", { exact: true });
    await description.click();
    await page.keyboard.type("Shapes the data");
    // Neither Enter nor leaving the field: the shortcut takes what it holds, and leaves the focus in it.
    await page.keyboard.press("Control+s");
    await poll(async () => (await stored()).version).toBe(2);
    expect((await stored()).yaml).toContain("description: Shapes the data");
    expect(await focused(page)).toMatch(/^input: description/);

    const second = page.locator('.react-flow__node[data-id="second"]');
    await second.click();
    await page.keyboard.press("Delete");
    await poll(() => editorText(page)).not.toContain("name: second");
    // The deleted node had the focus: it is back on the canvas, where undo and redo are.
    await poll(() => focused(page)).not.toBe("body");
    await page.keyboard.press("Control+z");
    await poll(() => editorText(page)).toContain("name: second");
    await page.keyboard.press("Control+Shift+z");
    await poll(() => editorText(page)).not.toContain("name: second");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("opens a step on the canvas with Enter: its panel, with the focus in it", async () => {
    const { context, page, errors } = await signedIn(service());
    const id = await createWorkflow(
      page,
      `name: keys-canvas-${unique()}\nsteps:\n  - { name: first, type: transform, output: one }\n  - { name: second, type: wait, seconds: 2 }\n`,
    );
    await page.goto(`/console/workflows/${id}`);
    const second = page.locator('.react-flow__node[data-id="second"]');
    await second.waitFor();
    await second.focus();
    await page.keyboard.press("Enter");
    const panel = page.getByRole("complementary", { name: "Selected step" });
    await panel.getByRole("heading", { name: "second" }).waitFor();
    await poll(() => focused(page)).toMatch(/^aside: Selected step/);
    await tabTo(page, /seconds/, 10);
    await screenshot(page, "canvas-enter-panel");
    expect(errors).toEqual([]);
    await context.close();
  });
});
