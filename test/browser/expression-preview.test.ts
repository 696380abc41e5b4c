import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { axeAudit } from "./axe";
import {
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  startExecution,
  untilStatus,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

const WORKFLOW = (name: string) => `name: ${name}
variables:
  who: { type: string, default: nobody }
steps:
  - name: fetch
    type: transform
    output: { rows: [{ title: first }, { title: second }] }
  - name: use
    type: transform
    condition: "vars.who = 'Bob'"
    output:
      title: "{{ 1 }}"
      bad: "{{ $error('no title here') }}"
      runaway: "{{ ($f := function($n) { $f($n + 1) }; $f(0)) }}"
      token: "{{ secrets.api_key }}"
  - name: each
    type: foreach
    items: "{{ steps.fetch.output.rows }}"
    steps:
      - name: shape
        type: transform
        output: { upper: "{{ $uppercase(item.title) }}" }
      - name: note
        type: transform
        output:
          line: "{{ item.title }} for {{ vars.who }}"
          shaped: "{{ steps.shape.output.upper }} by {{ item.title }}"
          message: >-
            Hi {{ vars.who }},
            you owe {{ $count(steps.fetch.output.rows) }}
          secret: "{{ vars.who }} uses {{ secrets.api_key }}"
      - name: inner
        type: foreach
        items: "{{ [item.title, 'x'] }}"
        steps:
          - name: deep
            type: transform
            output: { letters: "{{ item & ' of ' & steps.shape.output.upper }}" }
  - name: fan
    type: parallel
    branches:
      left:
        - name: branched
          type: foreach
          items: [10, 20]
          steps:
            - name: twice
              type: transform
              output: { doubled: "{{ item * 2 }}" }
`;

/** A foreach whose items differ at each evaluation: a run keeps no items, so item 0 here is evaluated again. */
const DRAWN = (name: string) => `name: ${name}
steps:
  - name: draw
    type: foreach
    items: "{{ [$random(), $random()] }}"
    steps:
      - name: keep
        type: transform
        output: { drawn: "{{ item }}" }
`;

/**
 * An agent's text, which each step using the agent renders in its own place; an agent no step uses; and one used in a
 * foreach's item and in a foreach inside it, where `item` is another item.
 */
const AGENTS = (name: string) => `name: ${name}
agents:
  - name: helper
    model: gpt-4o-mini
    instructions: "Help with {{ steps.fetch.output.topic }}"
  - { name: idle, model: gpt-4o-mini, instructions: "Idle {{ steps.fetch.output.topic }}" }
  - { name: nested, model: gpt-4o-mini, instructions: "Shaped {{ steps.shape.output.upper }} of {{ item }}" }
steps:
  - { name: fetch, type: transform, output: { topic: billing } }
  - { name: ask, type: agent, agent: helper, condition: "false", prompt: Hello }
  - { name: later, type: agent, agent: helper, condition: "false", prompt: Hello }
  - name: each
    type: foreach
    items: [{ title: first }]
    steps:
      - { name: shape, type: transform, output: { upper: "{{ $uppercase(item.title) }}" } }
      - { name: near, type: agent, agent: nested, condition: "false", prompt: Hello }
      - name: inner
        type: foreach
        items: [x]
        steps:
          - { name: deep, type: agent, agent: nested, condition: "false", prompt: Hello }
`;

/** Names the page's Web Workers as they are made, in `window.workersMade`: for `addInitScript`. */
const COUNT_WORKERS = `(() => {
  const Made = window.Worker;
  window.workersMade = [];
  window.Worker = class extends Made {
    constructor(url, options) {
      super(url, options);
      window.workersMade.push(options?.name ?? "");
    }
  };
})()`;

/**
 * Puts the cursor on the line holding `needle`, `back` characters before its end. The editor draws only the lines near
 * its view: it is scrolled down from the top until it draws that one.
 */
async function cursorIn(page: Page, needle: string, back: number): Promise<void> {
  const line = page.locator(".cm-line", { hasText: needle });
  const scroller = page.locator(".cm-scroller");
  await scroller.evaluate((el) => (el.scrollTop = 0));
  await expect
    .poll(
      async () => {
        if ((await line.count()) > 0) return true;
        await scroller.evaluate((el) => (el.scrollTop += el.clientHeight / 2));
        return false;
      },
      { timeout: 10_000, interval: 50, message: `the editor to draw the line holding ${needle}` },
    )
    .toBe(true);
  await line.click();
  await page.keyboard.press("End");
  for (let i = 0; i < back; i++) await page.keyboard.press("ArrowLeft");
}

/** Whether the preview is drawn right under the cursor's line, inside the window (a tooltip out of view is moved off). */
async function underCursor(page: Page): Promise<boolean> {
  const cursor = await page.locator(".cm-cursor-primary").boundingBox();
  const preview = await page.locator(".cm-expression-preview").boundingBox();
  if (!cursor || !preview) return false;
  const below = preview.y - (cursor.y + cursor.height);
  return (
    below >= -2 &&
    below < 12 &&
    preview.x >= 0 &&
    preview.x + preview.width <= 1280 &&
    preview.y + preview.height <= 800
  );
}

describeInBrowser("previewing an expression's result as it is written", () => {
  it("shows the value on the latest run's data, a field's text, an item and its steps, an error, the bound on a runaway and no secret, in both themes", async () => {
    const { context, page, errors } = await signedIn(service(), { colorScheme: "light" });
    const workflowId = await createWorkflow(page, WORKFLOW(`preview-${Date.now()}`));
    const executionId = await startExecution(page, workflowId, { inputs: { who: "Ada" } });
    await untilStatus(page, executionId, "COMPLETED");
    await page.goto(`/console/workflows/${workflowId}`);
    const preview = page.locator(".cm-expression-preview");
    const shown = async () => [
      await preview.locator(".cm-expression-preview-title").textContent(),
      await preview.locator(".cm-expression-preview-body").textContent(),
    ];
    /** The lines under the result: where `item` comes from, and what the whole field renders to; null when not shown. */
    const under = () =>
      Promise.all(
        [".cm-expression-preview-item", ".cm-expression-preview-field"].map(async (line) =>
          (await preview.locator(line).isVisible()) ? preview.locator(line).textContent() : null,
        ),
      );

    // Typed between the braces: the run's output and variables, as the run would have read them.
    await cursorIn(page, 'title: "{{', 4);
    await page.keyboard.press("Backspace");
    await page.keyboard.type("steps.fetch.output.rows[1].title & ' for ' & vars.who");
    await page.keyboard.press("Escape");
    await expect.poll(shown, { timeout: 10_000 }).toEqual(["Result on the known data", '"second for Ada"']);
    // The field is this template alone: its value is the expression's, said once.
    expect(await under()).toEqual([null, null]);
    expect(await preview.getByRole("status").count()).toBe(1);
    expect(await underCursor(page)).toBe(true);
    // What it covers beside the editor still takes a click: the editor's shadow root finds no preview under a point.
    const box = (await preview.boundingBox())!;
    const hit = await page
      .locator(".yaml-editor")
      .evaluate(
        (host, [x, y]) => host.shadowRoot!.elementFromPoint(x!, y!)?.closest(".cm-tooltip") != null,
        [box.x + box.width / 2, box.y + box.height / 2],
      );
    expect(hit).toBe(false);
    await screenshot(page, "expression-preview-value-light", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);

    // A condition says whether its step runs: the run skipped this one (its failing templates never ran).
    await cursorIn(page, "condition:", 3);
    await expect.poll(shown).toEqual(["Result on the known data", "false\n→ the step is skipped"]);

    await cursorIn(page, "bad:", 5);
    await expect.poll(shown).toEqual(["Error", "no title here (at character 7)"]);
    await screenshot(page, "expression-preview-error-light", { fullPage: false });

    // Stopped at the bound, the page still answering: the next expression is previewed by a new worker.
    await cursorIn(page, "runaway:", 5);
    await expect.poll(shown).toEqual(["Took too long", "It took longer than 200 ms here, and was stopped."]);
    expect(await underCursor(page)).toBe(true);
    await screenshot(page, "expression-preview-runaway-light", { fullPage: false });
    await cursorIn(page, "token:", 5);
    await expect
      .poll(shown)
      .toEqual([
        "Not previewed",
        "It reads secrets, which are not previewed: the console never receives their values.",
      ]);
    await cursorIn(page, 'title: "{{', 5);
    await expect.poll(shown).toEqual(["Result on the known data", '"second for Ada"']);

    // Text around the template: what the whole field renders to as well, read as YAML folds the lines.
    await cursorIn(page, "you owe", 6);
    await expect.poll(shown).toEqual(["Result on the known data", "2"]);
    expect(await under()).toEqual([null, 'field: "Hi Ada, you owe 2"']);
    expect(await underCursor(page)).toBe(true);
    // Inside the foreach, `item` is the run's first, rendered from its `items` as the run rendered them.
    await cursorIn(page, 'line: "{{ item', 26);
    await expect.poll(shown).toEqual(["Result on the known data", '"first"']);
    expect(await under()).toEqual(["item: item 0 of the latest run", 'field: "first for Ada"']);
    await screenshot(page, "expression-preview-field-light", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);
    // A step before it in the same item is that item's run of it, as the run read it there.
    await cursorIn(page, 'shaped: "{{', 24);
    await expect.poll(shown).toEqual(["Result on the known data", '"FIRST"']);
    expect(await under()).toEqual(["item, steps.shape: item 0 of the latest run", 'field: "FIRST by first"']);
    await screenshot(page, "expression-preview-item-step-light", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);
    // In a foreach nested in the first item, and in a parallel's branch: item 0 of each.
    await cursorIn(page, "letters:", 5);
    await expect.poll(shown).toEqual(["Result on the known data", '"first of FIRST"']);
    expect(await under()).toEqual(["item, steps.shape: item 0 of the latest run", null]);
    await cursorIn(page, "doubled:", 5);
    await expect.poll(shown).toEqual(["Result on the known data", "20"]);
    expect(await under()).toEqual(["item: item 0 of the latest run", null]);
    // A secret elsewhere in the field keeps the whole field from being previewed.
    await cursorIn(page, "uses {{", 32);
    await expect.poll(shown).toEqual(["Result on the known data", '"Ada"']);
    expect(await under()).toEqual([
      null,
      "field (not previewed): It reads secrets, which are not previewed: the console never receives their values.",
    ]);

    // Leaving the expression takes the preview away.
    await cursorIn(page, "name: use", 0);
    await preview.waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await cursorIn(page, "bad:", 5);
    await expect.poll(shown).toEqual(["Error", "no title here (at character 7)"]);
    await screenshot(page, "expression-preview-error-dark", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);
    await cursorIn(page, 'title: "{{', 5);
    await expect.poll(shown).toEqual(["Result on the known data", '"second for Ada"']);
    await screenshot(page, "expression-preview-value-dark", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);
    await cursorIn(page, 'line: "{{ item', 26);
    await expect.poll(under).toEqual(["item: item 0 of the latest run", 'field: "first for Ada"']);
    await screenshot(page, "expression-preview-field-dark", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);
    await cursorIn(page, 'shaped: "{{', 24);
    await expect.poll(under).toEqual(["item, steps.shape: item 0 of the latest run", 'field: "FIRST by first"']);
    await screenshot(page, "expression-preview-item-step-dark", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);

    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("previews an agent's text as at the first step using it, and says why there is none where no step does", async () => {
    const { context, page, errors } = await signedIn(service(), { colorScheme: "light" });
    const workflowId = await createWorkflow(page, AGENTS(`preview-agents-${Date.now()}`));
    const executionId = await startExecution(page, workflowId);
    await untilStatus(page, executionId, "COMPLETED");
    await page.goto(`/console/workflows/${workflowId}`);
    const preview = page.locator(".cm-expression-preview");
    const shown = async () => [
      await preview.locator(".cm-expression-preview-title").textContent(),
      await preview.locator(".cm-expression-preview-body").textContent(),
      await preview.locator(".cm-expression-preview-where").textContent(),
    ];

    await cursorIn(page, 'instructions: "Help with', 4);
    await expect
      .poll(shown, { timeout: 10_000 })
      .toEqual([
        "Result on the known data",
        '"billing"',
        "As at ask, the first of the 2 steps using the agent helper, on what each of them reads.",
      ]);
    expect(await underCursor(page)).toBe(true);
    await screenshot(page, "expression-preview-agent", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);

    await cursorIn(page, "name: idle", 6);
    await expect
      .poll(shown, { timeout: 10_000 })
      .toEqual(["Unknown", "No step uses the agent idle: its text is rendered where a step using it runs.", ""]);
    await screenshot(page, "expression-preview-agent-unused", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);

    // Used in a foreach's item and in one inside it: the outer item's step is the same run at both, `item` is not.
    await cursorIn(page, "name: nested", 22);
    const nested = async () => [
      ...(await shown()),
      await preview.locator(".cm-expression-preview-item").textContent(),
      await preview.locator(".cm-expression-preview-field").textContent(),
    ];
    await expect
      .poll(nested, { timeout: 10_000 })
      .toEqual([
        "Result on the known data",
        '"FIRST"',
        "As at near, the first of the 2 steps using the agent nested, on what each of them reads.",
        "steps.shape: item 0 of the latest run",
        "field (unknown): item has no known value",
      ]);
    await screenshot(page, "expression-preview-agent-nested", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);

    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("evaluates a foreach's item 0 once, in the one worker of the preview and the step panel, and says it may not be the run's", async () => {
    const { context, page, errors } = await signedIn(service(), { colorScheme: "light" });
    await page.addInitScript(COUNT_WORKERS);
    const workflowId = await createWorkflow(page, DRAWN(`preview-drawn-${Date.now()}`));
    const executionId = await startExecution(page, workflowId);
    await untilStatus(page, executionId, "COMPLETED");
    await page.goto(`/console/workflows/${workflowId}`);
    const preview = page.locator(".cm-expression-preview");
    const body = () => preview.locator(".cm-expression-preview-body").textContent();

    // Each time the cursor comes back, the same item 0: its items are not evaluated again.
    const drawn: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      await cursorIn(page, "drawn:", 5);
      await expect.poll(body, { timeout: 10_000 }).toMatch(/^0\.\d+$/);
      drawn.push(await body());
      await cursorIn(page, "name: draw", 0);
      await preview.waitFor({ state: "detached" });
    }
    expect(new Set(drawn).size).toBe(1);
    await cursorIn(page, "drawn:", 5);
    await expect
      .poll(() => preview.locator(".cm-expression-preview-item").textContent())
      .toBe(
        "item: item 0 of the latest run; item is evaluated again here from items calling $random(): " +
          "it may not be the run's",
      );
    expect(await body()).toBe(drawn[0]);
    await screenshot(page, "expression-preview-drawn-item", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);

    // The step panel's `item` is the same item 0, from the same worker: one for the page.
    const panel = page.getByRole("complementary", { name: "Selected step" });
    await page.locator('.react-flow__node[data-id="keep"]').click();
    await panel.getByRole("heading", { name: "keep" }).waitFor();
    const known = panel.getByRole("region", { name: "Outputs of earlier steps" });
    await expect.poll(() => known.locator(".field-value").first().textContent(), { timeout: 10_000 }).toBe(drawn[0]);
    // With what the preview says of it: it may not be the run's.
    expect(await known.locator(".item-may-differ").textContent()).toBe(
      "item is evaluated again here from items calling $random(): it may not be the run's",
    );
    await known.scrollIntoViewIfNeeded();
    await screenshot(page, "step-panel-drawn-item", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await screenshot(page, "step-panel-drawn-item-dark", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);
    expect(await page.evaluate("window.workersMade")).toEqual(["expression preview"]);

    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
