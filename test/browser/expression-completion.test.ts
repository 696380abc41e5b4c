import type { Locator, Page } from "playwright-core";
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

/**
 * Runs the stored workflow to its end, then opens it in the editor, its canvas drawn (`step` shown) and still; answers
 * a step's node on the canvas.
 */
async function editedAfterARun(page: Page, workflowId: string, step: string): Promise<(name: string) => Locator> {
  await untilStatus(page, await startExecution(page, workflowId), "COMPLETED");
  await page.goto(`/console/workflows/${workflowId}`);
  const node = (name: string) => page.locator(`.react-flow__node[data-id="${name}"]`);
  await node(step).waitFor();
  await whenCanvasStill(page);
  return node;
}

/** Types `text` at the end of the flow-mapping step on the YAML line holding `hasText`, before its `" }`. */
async function typeInStepLine(page: Page, hasText: string, text: string): Promise<Locator> {
  const line = page.locator(".cm-line", { hasText });
  await line.click();
  await page.keyboard.press("End");
  for (let i = '" }'.length; i > 0; i--) await page.keyboard.press("ArrowLeft");
  await page.keyboard.type(text);
  return line;
}

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

    // At the top level, after the foreach: no item; the owner's secrets; a function. The list, over the lines under
    // the cursor, is closed first.
    await page.keyboard.press("Escape");
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

  it("wraps a long line in the editor beside the canvas, its start in view, and keeps the list in the editor", async () => {
    const { context, page, errors } = await signedIn(service(), { viewport: { width: 1440, height: 1000 } });
    const workflowId = await createWorkflow(
      page,
      `name: wide-${Date.now()}
variables:
  ticket_id: { type: string, required: true, description: The ticket to classify }
steps:
  - { name: fetch, type: transform, output: { id: 7 } }
  - { name: use, type: transform, output: "Use what fetch found about the ticket" }
`,
    );
    await page.goto(`/console/workflows/${workflowId}`);
    await page.locator('.react-flow__node[data-id="use"]').waitFor();
    await whenCanvasStill(page);
    // At the end of the step's line, longer than the editor is wide once typed into: the selected step's panel is open.
    await typeInStepLine(page, "name: use", ". Ask {{ vars.");
    const options = page.locator(".cm-tooltip-autocomplete li .cm-completionLabel");
    await expect.poll(() => options.allTextContents()).toEqual(["ticket_id"]);
    await page.getByRole("complementary", { name: "Selected step" }).getByRole("heading", { name: "use" }).waitFor();
    await screenshot(page, "editor-long-line", { fullPage: false });

    // The text is not scrolled sideways: the starts of the lines, their indentation, stay in view.
    const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
    const scroller = await box(".cm-scroller");
    const content = await box(".cm-content");
    expect(content.x).toBeGreaterThanOrEqual(scroller.x);
    expect(content.x + content.width).toBeLessThanOrEqual(scroller.x + scroller.width);
    // The list is within the editor's width, off the canvas's palette beside it.
    const list = await box(".cm-tooltip-autocomplete");
    const editor = await box(".yaml-editor");
    expect(list.x + list.width).toBeLessThanOrEqual(editor.x + editor.width);
    expect(list.x + list.width).toBeLessThan((await box(".wf-palette")).x);
    expect(await axeAudit(page)).toEqual([]);

    // The rest of the line wraps under its start, indented past its dash.
    await options.getByText("ticket_id", { exact: true }).click();
    await page.keyboard.type(" }}");
    const line = page.locator(".cm-line", { hasText: "name: use" });
    const lineBox = (await line.boundingBox())!;
    const rowHeight = (await page.locator(".cm-line", { hasText: "name: fetch" }).boundingBox())!.height;
    expect(lineBox.height).toBeGreaterThan(1.5 * rowHeight);
    expect(await line.textContent()).toBe(
      '  - { name: use, type: transform, output: "Use what fetch found about the ticket. Ask {{ vars.ticket_id }}" }',
    );
    // End goes to the end of the row, and pressed again there to the end of the line.
    await line.getByText("name", { exact: true }).click();
    await page.keyboard.press("End");
    const cursorTop = async () => (await page.locator(".cm-cursor-primary").boundingBox())?.y;
    await expect.poll(cursorTop).toBeLessThan(lineBox.y + rowHeight);
    await page.keyboard.press("End");
    await expect.poll(cursorTop).toBeGreaterThan(lineBox.y + rowHeight);
    await page.keyboard.type(" # asked");
    await expect.poll(() => line.textContent()).toMatch(/\{\{ vars\.ticket_id \}\}" \} # asked$/);
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await screenshot(page, "editor-long-line-dark", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("at the top level, completes the outputs of the steps before the step only, as its panel and preview read", async () => {
    const { context, page, errors } = await signedIn(service(), { viewport: { width: 1440, height: 1000 } });
    const workflowId = await createWorkflow(
      page,
      `name: top-${Date.now()}
steps:
  - { name: fetch, type: transform, output: { id: 7 } }
  - { name: use, type: transform, output: "Use" }
  - name: fan
    type: parallel
    branches:
      left:
        - { name: lookup, type: transform, output: { city: Oslo } }
      right:
        - { name: count, type: transform, output: { n: 3 } }
  - { name: later, type: transform, output: { done: true } }
`,
    );
    const node = await editedAfterARun(page, workflowId, "later");
    const options = page.locator(".cm-tooltip-autocomplete li .cm-completionLabel");
    const line = await typeInStepLine(page, "name: use", " {{ steps.fetch.output.");
    await expect.poll(() => options.allTextContents()).toEqual(["id"]);
    await screenshot(page, "expression-completion-top-level");
    await options.getByText("id", { exact: true }).click();
    await page.keyboard.type(" }}");
    await expect.poll(() => line.textContent()).toContain('output: "Use {{ steps.fetch.output.id }}"');

    // A later step and a branch's step: the preview says the step has no known output, and a `.` after it opens no
    // list (the preview, which gives way to an open list, shows its syntax error instead).
    const preview = page.locator(".cm-expression-preview");
    for (const step of ["later", "lookup"]) {
      await page.keyboard.type(` {{ steps.${step}.output }}`);
      for (let i = " }}".length; i > 0; i--) await page.keyboard.press("ArrowLeft");
      await expect
        .poll(() => preview.locator(".cm-expression-preview-body").textContent(), { timeout: 10_000 })
        .toBe(`steps.${step} has no known output`);
      await page.keyboard.type(".");
      await expect
        .poll(async () => ((await preview.count()) > 0 ? preview.getAttribute("data-kind") : null), { timeout: 10_000 })
        .toBe("error");
      expect(await options.count()).toBe(0);
      await page.keyboard.press("Backspace");
      await page.keyboard.press("End");
      for (let i = '" }'.length; i > 0; i--) await page.keyboard.press("ArrowLeft");
    }

    const panel = page.getByRole("complementary", { name: "Selected step" });
    await node("use").click();
    await panel.getByRole("heading", { name: "use" }).waitFor();
    const known = panel.getByRole("region", { name: "Outputs of earlier steps" });
    await expect.poll(() => known.locator("summary").allTextContents(), { timeout: 10_000 }).toEqual(["fetch"]);

    expect(errors).toEqual([]);
    await context.close();
  });

  it("inside a foreach, completes, shows and maps the item's earlier steps and item as item 0 of the latest run", async () => {
    const { context, page, errors } = await signedIn(service(), { viewport: { width: 1440, height: 1000 } });
    const workflowId = await createWorkflow(
      page,
      `name: loop-${Date.now()}
steps:
  - { name: fetch, type: transform, output: { rows: [{ title: first, tags: [a] }, { title: second, tags: [] }] } }
  - name: each
    type: foreach
    items: "{{ steps.fetch.output.rows }}"
    steps:
      - { name: shape, type: transform, output: { upper: "{{ $uppercase(item.title) }}" } }
      - name: inner
        type: foreach
        items: "{{ item.tags }}"
        steps:
          - { name: tagged, type: transform, output: { tag: "{{ item }}" } }
          - { name: deep, type: transform, output: "deep" }
      - { name: note, type: transform, output: "Note:" }
  - { name: after, type: transform, output: "done" }
`,
    );
    const node = await editedAfterARun(page, workflowId, "note");
    const panel = page.getByRole("complementary", { name: "Selected step" });
    const known = panel.getByRole("region", { name: "Outputs of earlier steps" });
    const listed = () => known.locator("summary").allTextContents();
    const open = (name: string) => known.locator("summary", { hasText: new RegExp(`^${name}\\b`) }).click();

    // In the YAML, in the nested item: completion and hover read each item's run of its steps.
    const line = await typeInStepLine(page, "name: deep", " {{ steps.tagged.output.");
    const options = page.locator(".cm-tooltip-autocomplete li .cm-completionLabel");
    await expect.poll(() => options.allTextContents()).toEqual(["tag"]);
    // A click, not Enter: for its first 75 ms a list lets Enter through as a new line (docs/console.md), and nothing on
    // the page says when they are over.
    await options.getByText("tag", { exact: true }).click();
    await page.keyboard.type(" }} {{ steps.shape.output.upper }}");
    expect(await line.textContent()).toContain(
      'output: "deep {{ steps.tagged.output.tag }} {{ steps.shape.output.upper }}"',
    );
    const hovered = page.locator(".cm-known-value");
    for (let i = "r }}".length; i > 0; i--) await page.keyboard.press("ArrowLeft");
    const cursor = (await page.locator(".cm-cursor-primary").boundingBox())!;
    // Moved a pixel at each try: a hover shows once the pointer rests, and the preview opening may close it.
    let nudge = 0;
    await expect
      .poll(
        async () => {
          await page.mouse.move(cursor.x + 2 + (nudge = 1 - nudge), cursor.y + cursor.height / 2);
          return (await hovered.count()) > 0 ? hovered.locator("pre").textContent() : null;
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBe('"FIRST"');
    expect(await hovered.locator(".cm-known-value-title").textContent()).toBe(
      "steps.shape.output.upper, item 0 of the latest run",
    );
    await screenshot(page, "expression-completion-foreach-hover");
    expect(await axeAudit(page)).toEqual([]);
    await page.mouse.move(0, 0);
    await hovered.waitFor({ state: "detached" });

    // A step of the item: its earlier steps there and `item` as the run had them in item 0, the top level's as before.
    await node("note").click();
    await panel.getByRole("heading", { name: "note" }).waitFor();
    await expect
      .poll(listed, { timeout: 10_000 })
      .toEqual([
        "item (item 0 of the latest run)",
        "fetch",
        "shape (item 0 of the latest run)",
        "inner (item 0 of the latest run)",
      ]);
    const output = panel.getByRole("textbox", { name: /^output/ });
    await output.click();
    await output.press("End");
    await open("shape");
    await known.getByRole("button", { name: "Insert steps.shape.output.upper", exact: true }).click();
    await open("item");
    await known.getByRole("button", { name: "Insert item.title", exact: true }).click();
    await expect.poll(() => output.inputValue()).toBe("Note:{{ steps.shape.output.upper }}{{ item.title }}");
    await known.scrollIntoViewIfNeeded();
    await screenshot(page, "expression-completion-foreach-panel");
    expect(await axeAudit(page)).toEqual([]);

    // Nested: the outer item's steps and the inner item's, and the inner `item`, each at item 0.
    await node("deep").click();
    await panel.getByRole("heading", { name: "deep" }).waitFor();
    await expect
      .poll(listed)
      .toEqual([
        "item (item 0 of the latest run)",
        "fetch",
        "shape (item 0 of the latest run)",
        "tagged (item 0 of the latest run)",
      ]);
    await open("item");
    expect(await known.getByRole("button", { name: "Insert item", exact: true }).textContent()).toBe("item");
    expect(await known.locator(".field-value").first().textContent()).toBe('"a"');
    // After the foreach, nothing of its items: the top-level steps' outputs only.
    await node("after").click();
    await panel.getByRole("heading", { name: "after" }).waitFor();
    await expect.poll(listed).toEqual(["fetch", "each"]);

    expect(errors).toEqual([]);
    await context.close();
  });

  it("in a parallel's branch, completes, shows and maps its own earlier steps, and no other branch's", async () => {
    const { context, page, errors } = await signedIn(service(), { viewport: { width: 1440, height: 1000 } });
    const workflowId = await createWorkflow(
      page,
      `name: branch-${Date.now()}
steps:
  - { name: fetch, type: transform, output: { id: 7 } }
  - name: fan
    type: parallel
    branches:
      left:
        - { name: lookup, type: transform, output: { city: Oslo } }
        - { name: greet, type: transform, output: "Hi" }
      right:
        - { name: count, type: transform, output: { n: 3 } }
  - { name: after, type: transform, output: "done" }
`,
    );
    const node = await editedAfterARun(page, workflowId, "greet");

    // In the YAML, in the branch's second step: completion, the preview and the hover read the branch's first step.
    const line = await typeInStepLine(page, "name: greet", " {{ steps.lookup.output.");
    const options = page.locator(".cm-tooltip-autocomplete li .cm-completionLabel");
    await expect.poll(() => options.allTextContents()).toEqual(["city"]);
    await options.getByText("city", { exact: true }).click();
    await expect.poll(() => line.textContent()).toContain('output: "Hi {{ steps.lookup.output.city"');
    await page.keyboard.type(" }}");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    const preview = page.locator(".cm-expression-preview-body");
    await expect.poll(() => preview.textContent(), { timeout: 10_000 }).toBe('"Oslo"');
    const hovered = page.locator(".cm-known-value");
    const cursor = (await page.locator(".cm-cursor-primary").boundingBox())!;
    // Moved a pixel at each try: a hover shows once the pointer rests, and the preview opening may close it.
    let nudge = 0;
    await expect
      .poll(
        async () => {
          await page.mouse.move(cursor.x - 8 + (nudge = 1 - nudge), cursor.y + cursor.height / 2);
          return (await hovered.count()) > 0 ? hovered.locator("pre").textContent() : null;
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBe('"Oslo"');
    expect(await hovered.locator(".cm-known-value-title").textContent()).toBe(
      "steps.lookup.output.city, as last known",
    );
    await page.mouse.move(0, 0);
    await hovered.waitFor({ state: "detached" });

    // The panel of a step of the branch: the steps before the parallel, then its branch's; never the other branch's.
    const panel = page.getByRole("complementary", { name: "Selected step" });
    const known = panel.getByRole("region", { name: "Outputs of earlier steps" });
    const listed = () => known.locator("summary").allTextContents();
    await node("greet").click();
    await panel.getByRole("heading", { name: "greet" }).waitFor();
    await expect.poll(listed, { timeout: 10_000 }).toEqual(["fetch", "lookup"]);
    const output = panel.getByRole("textbox", { name: /^output/ });
    await output.click();
    await output.press("End");
    await known.locator("summary", { hasText: /^lookup/ }).click();
    await known.getByRole("button", { name: "Insert steps.lookup.output.city", exact: true }).click();
    await expect.poll(() => output.inputValue()).toMatch(/\{\{ steps\.lookup\.output\.city \}\}$/);
    await known.scrollIntoViewIfNeeded();
    await screenshot(page, "expression-completion-branch-panel");
    expect(await axeAudit(page)).toEqual([]);
    await node("count").click();
    await panel.getByRole("heading", { name: "count" }).waitFor();
    await expect.poll(listed).toEqual(["fetch"]);
    await node("after").click();
    await panel.getByRole("heading", { name: "after" }).waitFor();
    await expect.poll(listed).toEqual(["fetch", "fan"]);

    expect(errors).toEqual([]);
    await context.close();
  });
});
