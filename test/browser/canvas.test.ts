import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { applyOperation } from "@wf/shared/canvas";
import { newId } from "@wf/shared/execution";
import { axeAudit } from "./axe";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  SCREENSHOTS,
  signedIn,
  useSharedConsoleService,
  whenCanvasStill,
} from "./support";

const { service } = useSharedConsoleService();

const unique = () => newId().slice(-10).toLowerCase();

/** expect.poll with a bound fit for a service under test on a busy machine. */
const poll = <T>(read: () => T | Promise<T>, timeout = 10_000) => expect.poll(read, { timeout, interval: 50 });

/** Laid out by hand, with comments above, beside and inside steps and blank lines between some. */
function commented(name: string): string {
  return `# Nightly report, laid out by hand
name: ${name}
# the inputs
variables:
  day: { type: string, default: today }

steps:
  # fetch the rows first
  - name: fetch
    type: code
    language: python   # the sandbox's python
    code: |
      print('{"rows": [1, 2, 3]}')

  # then wait a little
  - name: pause
    type: wait
    seconds: 1

  - name: each
    type: foreach
    items: "{{ steps.fetch.output.rows }}"
    steps:
      # one per row
      - name: show
        type: transform
        output: "{{ item }}"
  - name: report
    type: transform
    output: { rows: "{{ steps.fetch.output.rows }}" }   # the end
`;
}

/** A step's node (xyflow names its nodes by id: the step name). */
const node = (page: Page, name: string) => page.locator(`.react-flow__node[data-id="${name}"]`);
const editorContent = (page: Page) => page.locator(".cm-content");
/** A click at a line's start: one in its middle would scroll a line wider than the editor sideways. */
const LINE_START = { x: 4, y: 4 };

// Run in the page; the tests' tsconfig has no DOM types.
interface PageElement {
  getAttribute(name: string): string | null;
  closest(selector: string): PageElement | null;
  tagName: string;
}
interface PageGlobals {
  document: {
    addEventListener(type: string, listener: (event: { target: PageElement }) => void, capture: boolean): void;
    querySelectorAll(selector: string): Iterable<PageElement>;
  };
  pointerSeen?: string[];
}

/** From now on, the page notes each pointer event's target: the node's id, or the element's class. */
async function recordPointer(page: Page): Promise<void> {
  await page.evaluate(() => {
    const page = globalThis as unknown as PageGlobals;
    const seen: string[] = (page.pointerSeen = []);
    for (const type of ["pointerdown", "pointerup", "click", "scroll"]) {
      page.document.addEventListener(
        type,
        ({ target }) =>
          seen.push(
            `${type} ${target.closest(".react-flow__node")?.getAttribute("data-id") ?? target.getAttribute("class") ?? target.tagName}`,
          ),
        true,
      );
    }
  });
}

/**
 * "selected: <the nodes drawn selected>; pointer: <the events noted since `recordPointer`>", to read in a failure's
 * message.
 */
function selectionSeen(page: Page): Promise<string> {
  return page.evaluate(() => {
    const page = globalThis as unknown as PageGlobals;
    const selected = [...page.document.querySelectorAll(".react-flow__node.selected")].map((n) =>
      n.getAttribute("data-id"),
    );
    return `selected: ${selected.join(", ")}; pointer: ${(page.pointerSeen ?? []).join(", ")}`;
  });
}

/**
 * The editor's text, line by line as it shows them (all of them: the tests' files are short enough to be drawn whole).
 */
async function editorText(page: Page): Promise<string> {
  return (await page.locator(".cm-content .cm-line").allTextContents()).join("\n");
}

/** The editor's lines that its selection covers, read from where the selection is drawn. */
function selectedLines(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // Runs in the page; the tests' tsconfig has no DOM types.
    interface Rect {
      top: number;
      bottom: number;
      width: number;
    }
    interface El {
      textContent: string | null;
      getBoundingClientRect(): Rect;
    }
    interface Root {
      querySelectorAll(selector: string): Iterable<El>;
    }
    const host = (
      globalThis as unknown as { document: { querySelector(s: string): { shadowRoot: Root } } }
    ).document.querySelector(".yaml-editor");
    const drawn = [...host.shadowRoot.querySelectorAll(".cm-selectionBackground")]
      .map((el) => el.getBoundingClientRect())
      .filter((r) => r.width > 0);
    // A line is selected where the drawn selection overlaps it: the middle of a line wrapped in two rows is their edge.
    return [...host.shadowRoot.querySelectorAll(".cm-line")]
      .filter((line) => {
        const r = line.getBoundingClientRect();
        return drawn.some((box) => Math.min(box.bottom, r.bottom) - Math.max(box.top, r.top) > 2);
      })
      .map((line) => line.textContent ?? "");
  });
}

/** Puts the editor's cursor at the end of the line that reads `text` (its indentation aside). */
async function endOfLine(page: Page, text: string): Promise<void> {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  await lineAt(page, new RegExp(`^\\s*${escaped}$`));
  await page.keyboard.press("End");
}

/**
 * Puts the editor's cursor on the first line that `pattern` matches, with the keyboard: a click on the line missed it
 * on a loaded machine (the page's main area took the click while the editor's lines were being laid out again).
 */
async function lineAt(page: Page, pattern: RegExp): Promise<void> {
  const index = (await editorText(page)).split("\n").findIndex((line) => pattern.test(line));
  if (index < 0) throw new Error(`no line of the editor matches ${String(pattern)}`);
  await editorContent(page).focus();
  await page.keyboard.press("ControlOrMeta+Home");
  for (let i = 0; i < index; i++) await page.keyboard.press("ArrowDown");
  await poll(() => page.locator(".cm-activeLine").textContent()).toMatch(pattern);
}

async function openEditor(page: Page, workflowId: string): Promise<void> {
  await page.goto(`/console/workflows/${workflowId}`);
  await editorContent(page).waitFor();
  await node(page, "fetch").waitFor();
}

/** How long a probe waits for its keystroke and its canvas before it fails, saying which it missed. */
const PROBE_MS = 30_000;

/**
 * Milliseconds from the page's next input event (a key, typed or inserted text) until `ready`
 * (evaluated in the page every frame) holds; `act` makes the input.
 */
async function timeToCanvas(page: Page, ready: string, act: () => Promise<void>): Promise<number> {
  // The probe is left in the page: an evaluation that answers a promise would wait for it.
  await page.evaluate(`window.__probe = new Promise((resolve, reject) => {
    let start;
    const mark = () => { start ??= performance.now(); };
    document.addEventListener("keydown", mark, { capture: true, once: true });
    document.addEventListener("beforeinput", mark, { capture: true, once: true });
    const deadline = performance.now() + ${PROBE_MS};
    const check = () => {
      if (start !== undefined && (${ready})) return resolve(performance.now() - start);
      if (performance.now() < deadline) return requestAnimationFrame(check);
      const focused = document.activeElement ? document.activeElement.tagName + "." + document.activeElement.className : "nothing";
      const nodes = document.querySelectorAll(".react-flow__node").length;
      reject(new Error((start === undefined ? "no keystroke reached the page" : "the canvas never showed " + ${JSON.stringify(ready)}) +
        " within ${PROBE_MS} ms; focus on " + focused + ", " + nodes + " nodes drawn"));
    };
    requestAnimationFrame(check);
  }); "armed"`);
  await act();
  return page.evaluate<number>("window.__probe");
}

/** Waits until the YAML editor has the keyboard: keys sent before then would go to the page. */
async function editorFocused(page: Page): Promise<void> {
  await page.locator(".cm-content:focus").waitFor({ timeout: 10_000 });
}

/** 200 steps of every leaf type, each with a timeout of its number, every fifth reading the one before it. */
function twoHundred(name: string): string {
  const steps = Array.from({ length: 200 }, (_, k) => {
    const i = k + 1;
    const read = i % 5 === 0 ? `{{ steps.s${i - 1}.output }}` : `step ${i}`;
    const head = `  - name: s${i}\n`;
    const timeout = `    timeout: ${i}\n`;
    switch (i % 4) {
      case 0:
        return `${head}    type: transform\n${timeout}    output: "${read}"\n`;
      case 1:
        return `${head}    type: code\n    language: python\n${timeout}    code: print(${i})\n`;
      case 2:
        return `${head}    type: llm\n    model: gpt-4o-mini\n${timeout}    prompt: "${read}"\n`;
      default:
        return `${head}    type: wait\n${timeout}    seconds: 1\n`;
    }
  });
  return `name: ${name}\nsteps:\n${steps.join("")}`;
}

describeInBrowser("the canvas beside the YAML", () => {
  it("edits one document from both sides, with one undo history, and keeps the places a person gives the steps", async () => {
    const { page, context, errors } = await signedIn(service());
    const original = commented(`nightly-${unique()}`);
    const workflowId = await createWorkflow(page, original);
    await openEditor(page, workflowId);
    await poll(() => editorText(page)).toBe(original);
    const comments = original.split("\n").filter((line) => line.trim().startsWith("#"));

    // A wait step dragged from the palette onto the top of `each` goes before it, written as the file writes its steps.
    await page
      .getByRole("button", { name: "Add a Wait step" })
      .dragTo(node(page, "each"), { targetPosition: { x: 60, y: 6 } });
    await node(page, "step_6").waitFor();
    const added = "  - name: step_6\n    type: wait\n    seconds: 1\n\n";
    await poll(() => editorText(page)).toBe(original.replace("  - name: each\n", `${added}  - name: each\n`));
    const afterDrop = await editorText(page);
    for (const comment of comments) expect(afterDrop.split("\n")).toContain(comment);

    // A field changed in the side panel changes that one line.
    await whenCanvasStill(page);
    await node(page, "pause").click();
    const panel = page.getByRole("complementary", { name: "Selected step" });
    await panel.getByRole("heading", { name: "pause" }).waitFor();
    await panel.getByLabel("seconds").fill("45");
    await panel.getByLabel("seconds").press("Enter");
    await poll(() => editorText(page)).not.toBe(afterDrop);
    const afterField = await editorText(page);
    const changed = afterField
      .split("\n")
      .flatMap((line, i) => (line === afterDrop.split("\n")[i] ? [] : [[afterDrop.split("\n")[i], line]]));
    expect(changed).toEqual([["    seconds: 1", "    seconds: 45"]]);
    await screenshot(page, "canvas-editor");

    // A step typed in the editor appears on the canvas.
    await editorContent(page).click();
    await page.keyboard.press("ControlOrMeta+End");
    await page.keyboard.insertText("  - name: typed\n    type: wait\n    seconds: 2\n");
    await node(page, "typed").waitFor();

    // Undo on the canvas undoes the typing, then the panel's edit; undo in the editor, the drop: the text is the
    // original again.
    await page.locator(".react-flow__pane").click({ position: { x: 300, y: 20 } });
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => node(page, "typed").count()).toBe(0);
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(afterDrop);
    await editorContent(page).click();
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(original);
    await poll(() => node(page, "step_6").count()).toBe(0);
    await poll(() => page.getByRole("status").filter({ hasText: "unsaved" }).count()).toBe(0);

    // Selecting a node selects its lines; the editor's cursor selects the node it is in.
    await whenCanvasStill(page);
    await node(page, "report").click();
    await poll(() => selectedLines(page)).toEqual([
      "  - name: report",
      "    type: transform",
      '    output: { rows: "{{ steps.fetch.output.rows }}" }   # the end',
    ]);
    await endOfLine(page, `print('{"rows": [1, 2, 3]}')`);
    await poll(() => node(page, "fetch").getAttribute("class")).toContain("selected");
    await panel.getByRole("heading", { name: "fetch" }).waitFor();

    // A node dragged aside keeps its place, stored beside the workflow; a rename takes it along. Selected from the
    // editor, to bring it into view (the view is on fetch), and grabbed once the canvas stands still.
    await endOfLine(page, "- name: report");
    await panel.getByRole("heading", { name: "report" }).waitFor();
    await whenCanvasStill(page);
    const box = (await node(page, "report").boundingBox())!;
    const pane = (await page.locator(".react-flow__pane").boundingBox())!;
    expect(
      { x: box.x + 40 - pane.x, y: box.y + 20 - pane.y, width: pane.width, height: pane.height },
      "where the node is grabbed, in the pane",
    ).toSatisfy(({ x, y, width, height }) => x > 0 && y > 0 && x < width && y < height);
    await page.mouse.move(box.x + 40, box.y + 20);
    await page.mouse.down();
    await page.mouse.move(box.x + 140, box.y + 24, { steps: 8 });
    await page.mouse.move(box.x + 240, box.y + 28, { steps: 8 });
    await page.mouse.up();
    const stored = () =>
      consoleApi<{ layout: { positions: Record<string, { x: number; y: number }> }; version: number }>(
        page,
        "GET",
        `/api/console/workflows/${workflowId}`,
      );
    await poll(async () => Object.keys((await stored()).json.layout.positions)).toEqual(["report"]);
    const placed = (await stored()).json.layout.positions.report!;
    await whenCanvasStill(page);
    await recordPointer(page);
    // Where it was grabbed: dragged aside, most of it is past the pane's edge (the step panel is open), and a click at
    // its middle had the browser scroll the pane to it and xyflow scroll it back between the press and the release,
    // which then reached the pane. A failure's message names the node selected and what the click reached.
    await node(page, "report").click({ position: { x: 40, y: 20 } });
    await poll(() => selectionSeen(page)).toMatch(/^selected: report;/);
    await panel.getByRole("heading", { name: "report" }).waitFor();
    await panel.getByLabel("name").fill("summary");
    await panel.getByLabel("name").press("Enter");
    await node(page, "summary").waitFor();
    await poll(async () => (await stored()).json.layout.positions).toEqual({ summary: placed });
    // The layout is not a version of the workflow.
    expect((await stored()).json.version).toBe(1);

    // Delete on the canvas deletes the selected step, naming the references left reading it; undo brings it back.
    const beforeDelete = await editorText(page);
    // The cursor in its lines brings it into view (the canvas followed the renamed step away from it).
    await endOfLine(page, `print('{"rows": [1, 2, 3]}')`);
    await poll(() => node(page, "fetch").getAttribute("class")).toContain("selected");
    await whenCanvasStill(page);
    await node(page, "fetch").click();
    await page.keyboard.press("Delete");
    await poll(() => node(page, "fetch").count()).toBe(0);
    await page.getByRole("status").filter({ hasText: "step `each` still reads `steps.fetch`" }).waitFor();
    expect(await editorText(page)).not.toContain("- name: fetch");
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(beforeDelete);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("edits a new foreach's items in the side panel as YAML text, and keeps a mistake there until it is fixed", async () => {
    const { page, context, errors } = await signedIn(service());
    const original = commented(`items-${unique()}`);
    await openEditor(page, await createWorkflow(page, original));

    // A foreach from the palette starts with no items, and is selected.
    await page
      .getByRole("button", { name: "Add a For each step" })
      .dragTo(node(page, "each"), { targetPosition: { x: 60, y: 6 } });
    await node(page, "step_6").waitFor();
    await poll(() => editorText(page)).toContain("  - name: step_6\n    type: foreach\n    items: []\n");
    const afterDrop = await editorText(page);
    const panel = page.getByRole("complementary", { name: "Selected step" });
    await panel.getByRole("heading", { name: "step_6" }).waitFor();
    const items = panel.getByRole("textbox", { name: "items" });
    expect(await items.inputValue()).toBe("[]");

    // A list typed there and committed is one change of the YAML, on block lines below the key, written as typed
    // with its comment; the canvas still draws the step, with its inner step.
    const typed = "- north\n- south  # and back";
    await items.fill(typed);
    await items.press("ControlOrMeta+Enter");
    const listed = afterDrop.replace("    items: []\n", "    items:\n      - north\n      - south  # and back\n");
    await poll(() => editorText(page)).toBe(listed);
    await poll(() => items.inputValue()).toBe(typed);
    // The keys that save and run the workflow elsewhere only commit the field here.
    expect(await page.getByRole("status").filter({ hasText: "unsaved" }).count()).toBe(1);
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(await node(page, "step_6").count()).toBe(1);
    expect(await node(page, "step_7").count()).toBe(1);
    await poll(() => page.locator(".canvas-banner").count()).toBe(0);
    expect(await items.getAttribute("aria-invalid")).toBeNull();
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-yaml-field.png") });

    // A comment written in the file shows in the field, where it is edited like the rest: a comment changed, one
    // added above the items and an item added are one change of the YAML; both edits undo one at a time.
    await endOfLine(page, "- north");
    await page.keyboard.insertText("   # cold");
    await poll(() => items.inputValue()).toBe("- north   # cold\n- south  # and back");
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-yaml-comments.png") });
    await items.fill("# where to\n- north   # very cold\n- south  # and back\n- east");
    await items.press("ControlOrMeta+Enter");
    await poll(() => editorText(page)).toBe(
      listed
        .replace("      - north\n", "      # where to\n      - north   # very cold\n")
        .replace("# and back\n", "# and back\n      - east\n"),
    );
    await poll(() => items.inputValue()).toBe("# where to\n- north   # very cold\n- south  # and back\n- east");
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-yaml-comments-edited.png") });
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-yaml-comments-edited-dark.png") });
    expect(await axeAudit(page)).toEqual([]);
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    // A comment changed alone is written too.
    await items.fill("# where to go\n- north   # very cold\n- south  # and back\n- east");
    await items.press("Tab");
    await poll(() => editorText(page)).toContain("      # where to go\n      - north   # very cold\n");
    await editorContent(page).click();
    for (let i = 0; i < 3; i++) await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(listed);
    await poll(() => items.inputValue()).toBe(typed);

    // YAML that does not parse stays in the field, which says what is wrong; the text is left as it was.
    await items.fill("- north\n- [south");
    await items.press("Tab");
    const problem = panel.getByRole("alert");
    await poll(() => problem.textContent()).toMatch(/^Not valid YAML \(line 2\): /);
    expect(await items.getAttribute("aria-invalid")).toBe("true");
    expect(await items.getAttribute("aria-describedby")).toBe(await problem.getAttribute("id"));
    expect(await items.inputValue()).toBe("- north\n- [south");
    expect(await editorText(page)).toBe(listed);
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-yaml-field-error.png") });
    expect(await axeAudit(page)).toEqual([]);

    // So does a mapping, which `items` cannot be; Escape takes the field back to what the file says.
    await items.fill("north: 1");
    await items.press("ControlOrMeta+Enter");
    await poll(() => problem.textContent()).toBe("Write a string or a list here, not a mapping.");
    await items.press("Escape");
    await poll(() => problem.count()).toBe(0);
    expect(await items.inputValue()).toBe(typed);
    expect(await editorText(page)).toBe(listed);

    // A template in place of the list, and back: each commit one step of the editor's undo history.
    await items.fill("{{ steps.fetch.output.rows }}");
    await items.press("ControlOrMeta+Enter");
    await poll(() => editorText(page)).toBe(
      afterDrop.replace("    items: []\n", '    items: "{{ steps.fetch.output.rows }}"\n'),
    );
    await editorContent(page).click();
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(listed);
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(afterDrop);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("keeps a condition the workflow would refuse in its field, saying why, until it is fixed", async () => {
    const { page, context, errors } = await signedIn(service());
    const original = commented(`refused-${unique()}`);
    await openEditor(page, await createWorkflow(page, original));
    await node(page, "report").click();
    const panel = page.getByRole("complementary", { name: "Selected step" });
    await panel.getByRole("heading", { name: "report" }).waitFor();
    await panel.getByRole("checkbox", { name: "Condition" }).check();
    await poll(() => editorText(page)).toContain('    condition: "true"');
    const gated = await editorText(page);

    // A condition that does not parse is not written; the field keeps it, says why, and is marked, so that nobody
    // takes the step for gated by it.
    const condition = panel.getByRole("textbox", { name: /^condition/ });
    await condition.fill("$count(steps.fetch.output.rows > 0");
    await condition.press("Tab");
    const problem = panel.getByRole("alert");
    await poll(() => problem.textContent()).toMatch(/^Not changed: .*invalid condition .*Expected "\)"/);
    expect(await condition.getAttribute("aria-invalid")).toBe("true");
    expect(await condition.getAttribute("aria-describedby")).toBe(await problem.getAttribute("id"));
    expect(await condition.inputValue()).toBe("$count(steps.fetch.output.rows > 0");
    expect(await editorText(page)).toBe(gated);
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-refused-condition.png") });
    expect(await axeAudit(page)).toEqual([]);

    // Fixed there, it is written, and the mark goes.
    await condition.fill("$count(steps.fetch.output.rows) > 0");
    await condition.press("Tab");
    await poll(() => editorText(page)).toContain('    condition: "$count(steps.fetch.output.rows) > 0"');
    await poll(() => problem.count()).toBe(0);
    expect(await condition.getAttribute("aria-invalid")).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows the comment on a list's key line first in the panel's box, and writes it back on that line", async () => {
    const { page, context, errors } = await signedIn(service());
    const original = commented(`key-comment-${unique()}`).replace(
      '    items: "{{ steps.fetch.output.rows }}"\n',
      "    items:   # the rows\n      - 1\n      - 2\n",
    );
    await openEditor(page, await createWorkflow(page, original));
    await node(page, "each").click({ position: { x: 40, y: 20 } });
    const panel = page.getByRole("complementary", { name: "Selected step" });
    await panel.getByRole("heading", { name: "each" }).waitFor();
    const items = panel.getByRole("textbox", { name: "items" });
    await poll(() => items.inputValue()).toBe("# the rows\n- 1\n- 2");
    await items.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-yaml-key-comment.png") });
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-yaml-key-comment-dark.png") });
    expect(await axeAudit(page)).toEqual([]);
    await page.getByRole("button", { name: "Switch to light theme" }).click();

    // The first line edited goes back to the key's line, an item added below it: one change of the YAML.
    await items.fill("# the row ids\n- 1\n- 2\n- 3");
    await items.press("ControlOrMeta+Enter");
    const edited = original
      .replace("items:   # the rows\n", "items:   # the row ids\n")
      .replace("- 2\n", "- 2\n      - 3\n");
    await poll(() => editorText(page)).toBe(edited);
    await poll(() => items.inputValue()).toBe("# the row ids\n- 1\n- 2\n- 3");

    // A template typed under it in place of the list: the key's line keeps the comment the box still shows.
    await items.fill("# the row ids\n{{ steps.fetch.output.rows }}");
    await items.press("ControlOrMeta+Enter");
    await poll(() => editorText(page)).toBe(
      original.replace(
        "items:   # the rows\n      - 1\n      - 2\n",
        'items: "{{ steps.fetch.output.rows }}"   # the row ids\n',
      ),
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("wraps several adjacent steps, selected by shift-click or Shift+Enter, in one parallel of a branch each", async () => {
    const { page, context, errors } = await signedIn(service());
    const original = commented(`wrap-several-${unique()}`);
    await openEditor(page, await createWorkflow(page, original));
    const wrapped = applyOperation(original, { kind: "wrapInParallel", ids: ["fetch", "pause"] });
    if (!wrapped.ok) throw new Error(wrapped.error);
    const panel = page.getByRole("complementary", { name: "Selected step" });

    // A click, then a shift-click: both selected, said in their names and the panel.
    await node(page, "fetch").click();
    await panel.getByRole("heading", { name: "fetch" }).waitFor();
    await node(page, "pause").click({ modifiers: ["Shift"] });
    const selectedNote = panel.getByText("2 steps selected: fetch, pause");
    await selectedNote.waitFor();
    expect(await node(page, "fetch").getAttribute("aria-label")).toBe("Step fetch, selected");
    expect(await node(page, "pause").getAttribute("aria-label")).toBe("Step pause, selected");
    expect(await node(page, "each").getAttribute("aria-label")).toBe("Step each");
    await whenCanvasStill(page);
    await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, "canvas-several-selected.png") });
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, "canvas-several-selected-dark.png") });
    expect(await axeAudit(page)).toEqual([]);
    await page.getByRole("button", { name: "Switch to light theme" }).click();

    // One parallel, a branch each: one change of the YAML, undone in one step.
    await panel.getByRole("button", { name: "Wrap 2 steps in parallel" }).click();
    await poll(() => editorText(page)).toBe(wrapped.text);
    await node(page, `${wrapped.id}/fetch`).waitFor();
    await node(page, `${wrapped.id}/pause`).waitFor();
    await whenCanvasStill(page);
    await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, "canvas-several-wrapped.png") });
    await editorContent(page).focus();
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(original);

    // With the keyboard: Enter on a step, Shift+Enter on the next, then the panel's button.
    await node(page, "fetch").waitFor();
    await node(page, "fetch").focus();
    await page.keyboard.press("Enter");
    await panel.getByRole("heading", { name: "fetch" }).waitFor();
    await node(page, "pause").focus();
    await page.keyboard.press("Shift+Enter");
    await selectedNote.waitFor();
    await panel.getByRole("button", { name: "Wrap 2 steps in parallel" }).focus();
    await page.keyboard.press("Enter");
    await poll(() => editorText(page)).toBe(wrapped.text);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("moves a step into a foreach by dragging it there, and keeps the last valid drawing while the YAML has a mistake (dark theme)", async () => {
    const { page, context, errors } = await signedIn(service(), { colorScheme: "dark" });
    const original = commented(`dark-${unique()}`);
    await openEditor(page, await createWorkflow(page, original));

    // Dropped in `each` under `show`: moved there in the text, with its comment, indented for it.
    const from = (await node(page, "pause").boundingBox())!;
    const to = (await node(page, "show").boundingBox())!;
    await page.mouse.move(from.x + 40, from.y + 20);
    await page.mouse.down();
    await page.mouse.move(to.x + 40, to.y + to.height + 4, { steps: 12 });
    await page.mouse.move(to.x + 40, to.y + to.height + 8, { steps: 4 });
    await page.mouse.up();
    await poll(() => editorText(page)).toContain(
      '        output: "{{ item }}"\n      # then wait a little\n      - name: pause\n        type: wait\n        seconds: 1\n  - name: report',
    );
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(original);
    // On its header: the middle of a container is its steps'.
    await node(page, "each").click({ position: { x: 40, y: 20 } });
    await endOfLine(page, "type: wait");
    await page.keyboard.type("x");
    const banner = page.locator(".canvas-banner");
    await poll(() => banner.textContent()).toContain("The canvas shows the last valid version. 1 problem in the YAML:");
    await banner.getByRole("button", { name: /^line 17:\d+ / }).waitFor();
    await poll(() => node(page, "pause").locator(".wf-node-issue").getAttribute("title")).toContain("waitx");
    expect(await node(page, "pause").textContent()).toContain("Wait");
    await screenshot(page, "canvas-editor-dark");
    await page.keyboard.press("Backspace");
    await poll(() => banner.count()).toBe(0);
    expect(await node(page, "pause").locator(".wf-node-issue").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("marks the steps a problem is in on the last valid drawing: a duplicate name, a broken indentation, new lines", async () => {
    const { page, context, errors } = await signedIn(service());
    const original = commented(`marks-${unique()}`);
    await openEditor(page, await createWorkflow(page, original));
    await whenCanvasStill(page);
    const banner = page.locator(".canvas-banner");
    const problems = page.getByRole("region", { name: "Problems" });
    /** The mark on a step's node: its name says the problems, and a click goes to the first. */
    const mark = (name: string) => node(page, name).getByRole("button", { name: /^Problem: / });
    /** The mark below a step's node, for a problem in a new step written after it. */
    const after = (name: string) => node(page, name).getByRole("button", { name: /^Problem in a new step after / });
    /**
     * A mark's name, read without waiting long for the mark: a node drawn again meanwhile (the drawing follows each
     * edit) is read again at the poll's next try rather than holding the whole poll.
     */
    const label = (marked: ReturnType<typeof mark>) => marked.getAttribute("aria-label", { timeout: 1_000 });
    /** The line the editor's cursor is on. */
    const cursorLine = () => page.locator(".cm-activeLine").textContent();
    /** The canvas in the light theme, then in the dark one. */
    const shots = async (name: string) => {
      await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
      await page.getByRole("button", { name: "Switch to dark theme" }).click();
      await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, `${name}-dark.png`) });
      expect(await axeAudit(page)).toEqual([]);
      await page.getByRole("button", { name: "Switch to light theme" }).click();
    };
    /** Screenshots and axe with the marks shown, then the mistake undone: the text as it was, no banner, no mark. */
    const markedThenUndone = async (name: string) => {
      await shots(name);
      expect(await axeAudit(page)).toEqual([]);
      await editorContent(page).focus();
      await page.keyboard.press("ControlOrMeta+z");
      await poll(() => editorText(page)).toBe(original);
      await poll(() => banner.count()).toBe(0);
      expect(await page.locator(".wf-node-issue, .wf-node-issue-after").count()).toBe(0);
      // The drawing of the text undone to may move the canvas: the next marks are clicked once it stands still.
      await whenCanvasStill(page);
    };

    // `pause` renamed `fetch` at once: its node and the first `fetch`'s are marked, and the list's problem selects it.
    await endOfLine(page, "- name: pause");
    await page.keyboard.press("ControlOrMeta+Shift+ArrowLeft");
    await page.keyboard.insertText("fetch");
    const duplicate = "line 16: duplicate step name `fetch`: the step at line 9 already uses it";
    await banner.getByRole("button", { name: /^line 16:11 duplicate step name `fetch`/ }).waitFor();
    await poll(() => label(mark("pause"))).toContain(duplicate);
    expect(await mark("fetch").getAttribute("aria-label")).toContain(duplicate);
    expect(await mark("each").count()).toBe(0);
    await problems.getByRole("button", { name: /^line 16, column 11: steps\[1\]\.name: duplicate step name/ }).click();
    await poll(() => node(page, "pause").getAttribute("class")).toContain("selected");
    await markedThenUndone("canvas-mark-duplicate-name");

    // One space more before a field of `show`, nested in `each`: the text no longer parses; `show` is marked.
    await lineAt(page, /^\s*type: transform$/);
    await page.keyboard.press("Home");
    await page.keyboard.type(" ");
    // The text reads wrong from there on: the banner lists each error the parser found.
    await banner
      .getByRole("button", { name: /^line 25:\d+ YAML syntax error/ })
      .first()
      .waitFor();
    await poll(() => label(mark("show"))).toContain("line 25: YAML syntax error");
    expect(await mark("each").count()).toBe(0);
    expect(await node(page, "show").textContent()).toContain("Transform");
    await markedThenUndone("canvas-mark-broken-indentation");

    // A field added after `pause`'s last one, deeper than its `-`, with a mistake: `pause` is marked, and its mark
    // takes the cursor to the mistake, which selects `pause`.
    await endOfLine(page, "seconds: 1");
    await page.keyboard.insertText("\n    timeout: 5: 6");
    await poll(() => label(mark("pause"))).toMatch(/^Problem: line 19: YAML syntax error/);
    await editorContent(page).focus();
    await page.keyboard.press("ControlOrMeta+Home");
    await mark("pause").click();
    await poll(cursorLine).toBe("    timeout: 5: 6");
    await poll(() => node(page, "pause").getAttribute("class")).toContain("selected");
    await markedThenUndone("canvas-mark-new-field");

    // A new step written after `pause`, at the `-` of the steps: not drawn yet, its mistake is marked below `pause`,
    // and both that mark and the banner take the cursor there, selecting no step.
    await endOfLine(page, "seconds: 1");
    await page.keyboard.insertText("\n  - name: later\n    type: wait: x");
    const later = "line 20: YAML syntax error";
    await poll(() => label(after("pause"))).toContain(`after pause: ${later}`);
    expect(await after("pause").textContent()).toBe("! new step");
    expect(await page.locator(".wf-node-issue").count()).toBe(0);
    await banner.getByRole("button", { name: /^line 20:\d+ YAML syntax error/ }).waitFor();
    await after("pause").click();
    await poll(cursorLine).toBe("    type: wait: x");
    expect(await page.locator(".react-flow__node.selected").count()).toBe(0);
    await endOfLine(page, "- name: fetch");
    await banner.getByRole("button", { name: /^line 20:\d+ YAML syntax error/ }).click();
    await poll(cursorLine).toBe("    type: wait: x");
    await markedThenUndone("canvas-mark-new-step");

    // A mistake outside the steps is on no step: the banner names it, and takes the cursor there.
    const nameLine = original.split("\n")[1] ?? "";
    await endOfLine(page, nameLine);
    await page.keyboard.insertText(": y");
    await banner.getByRole("button", { name: /^line 2:\d+ YAML syntax error/ }).waitFor();
    expect(await page.locator(".wf-node-issue, .wf-node-issue-after").count()).toBe(0);
    await endOfLine(page, "- name: fetch");
    await banner.getByRole("button", { name: /^line 2:\d+ / }).click();
    await poll(cursorLine).toBe(`${nameLine}: y`);
    await markedThenUndone("canvas-mark-outside-steps");
    await problems.getByText("No problems").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("marks each of several mistakes made since the last valid text, a new step's among them", async () => {
    const { page, context, errors } = await signedIn(service());
    const original = commented(`several-marks-${unique()}`);
    await openEditor(page, await createWorkflow(page, original));
    await whenCanvasStill(page);
    // A new step written after `pause`, its type misspelt, then a field `report` does not take: two edits apart.
    await endOfLine(page, "seconds: 1");
    await page.keyboard.insertText("\n  - name: extra\n    type: wiat");
    await endOfLine(page, 'output: { rows: "{{ steps.fetch.output.rows }}" }   # the end');
    await page.keyboard.insertText("\n    bogus: 1");
    // Both read: the canvas follows typing a little behind, and marked the first edit alone before.
    await poll(() => page.locator(".canvas-banner").textContent()).toContain("2 problems in the YAML");
    const after = node(page, "pause").getByRole("button", { name: /^Problem in a new step after / });
    const onReport = node(page, "report").getByRole("button", { name: /^Problem: / });
    await poll(async () => [await after.count(), await onReport.count()]).toEqual([1, 1]);
    await whenCanvasStill(page);
    await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, "canvas-several-marks.png") });
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, "canvas-several-marks-dark.png") });
    expect(await axeAudit(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("lists every problem in the banner, each going to its line by click or keyboard, in both themes", async () => {
    const { page, context, errors } = await signedIn(service());
    const original = commented(`problems-${unique()}`);
    await openEditor(page, await createWorkflow(page, original));
    await whenCanvasStill(page);
    const banner = page.locator(".canvas-banner");
    const list = banner.getByRole("list", { name: /^The canvas shows the last valid version\./ });
    const cursorLine = () => page.locator(".cm-activeLine").textContent();

    // Three mistakes in three steps: `pause` renamed `fetch` at once, and a letter more in two types.
    await endOfLine(page, "- name: pause");
    await page.keyboard.press("ControlOrMeta+Shift+ArrowLeft");
    await page.keyboard.insertText("fetch");
    await endOfLine(page, "type: wait");
    await page.keyboard.insertText("x");
    await endOfLine(page, "type: transform");
    await page.keyboard.insertText("x");
    await poll(() => banner.getByRole("status").textContent()).toBe(
      "The canvas shows the last valid version. 3 problems in the YAML:",
    );
    // Each with its line and column, in the order of the text.
    const names = await list.getByRole("button").allTextContents();
    expect(names.map((name) => name.slice(0, name.indexOf(" ", 5)))).toEqual([
      "line 16:11",
      "line 17:11",
      "line 26:15",
    ]);
    expect(names[0]).toContain("duplicate step name `fetch`");
    expect(names[1]).toContain("unknown type `waitx`");
    expect(names[2]).toContain("unknown type `transformx`");
    await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, "canvas-banner-problems.png") });
    expect(await axeAudit(page)).toEqual([]);
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, "canvas-banner-problems-dark.png") });
    expect(await axeAudit(page)).toEqual([]);
    await page.getByRole("button", { name: "Switch to light theme" }).click();

    // A click goes to its problem; so does Enter on one reached with Tab from the one before it.
    await list.getByRole("button", { name: /^line 26:15 / }).click();
    await poll(cursorLine).toBe("        type: transformx");
    await list.getByRole("button", { name: /^line 16:11 / }).focus();
    await page.keyboard.press("Tab");
    expect(await list.locator("button:focus").textContent()).toMatch(/^line 17:11 /);
    await page.keyboard.press("Enter");
    await poll(cursorLine).toBe("    type: waitx");

    // One fixed, the list follows; the others undone, the banner goes.
    await page.keyboard.press("End");
    await page.keyboard.press("Backspace");
    await poll(() => banner.getByRole("status").textContent()).toContain("2 problems in the YAML");
    expect(await list.getByRole("button").count()).toBe(2);
    for (let i = 0; i < 4; i++) await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(original);
    await poll(() => banner.count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("lists the problems the banner counts under the editor too, in the same frame, as an expression is typed", async () => {
    const { page, context, errors } = await signedIn(service());
    await openEditor(page, await createWorkflow(page, commented(`agree-${unique()}`)));
    await whenCanvasStill(page);
    /**
     * The banner's head, the list under the editor and how many underlines the editor draws, read in the first frame
     * drawn with the banner shown (or gone): watched frame by frame from before the keys are typed, so that a list (or
     * an underline) a check behind the banner is caught.
     */
    const firstFrame = async (banner: boolean, type: () => Promise<void>): Promise<string[]> => {
      await page.evaluate((shown) => {
        // Runs in the page; the tests' tsconfig has no DOM types.
        const win = globalThis as unknown as {
          document: {
            querySelector(selector: string): {
              textContent: string | null;
              shadowRoot?: { querySelectorAll(selector: string): { length: number } } | null;
            } | null;
          };
          requestAnimationFrame(callback: () => void): number;
          firstFrame?: Promise<string[]>;
        };
        const until = Date.now() + 10_000;
        win.firstFrame = new Promise((resolve, reject) => {
          const look = () => {
            const head = win.document.querySelector(".canvas-banner-head");
            const problems = win.document.querySelector("section.problems")?.textContent ?? "";
            // The editor draws in a shadow root of its own.
            const editor = win.document.querySelector(".yaml-editor")?.shadowRoot;
            const underlines = String(editor?.querySelectorAll(".cm-lintRange-error").length);
            if ((head !== null) === shown) resolve([head?.textContent ?? "", problems, underlines]);
            else if (Date.now() > until) reject(new Error(`no frame with the banner ${shown ? "shown" : "gone"}`));
            else win.requestAnimationFrame(look);
          };
          look();
        });
      }, banner);
      await type();
      return page.evaluate(() => (globalThis as unknown as { firstFrame: Promise<string[]> }).firstFrame);
    };

    // An expression typed, its `{{` not closed yet: the text has a problem in both places at once.
    await lineAt(page, /output: "\{\{ item \}\}"$/);
    await page.keyboard.press("End");
    await page.keyboard.press("ArrowLeft");
    const open = await firstFrame(true, () => page.keyboard.type(" {{ item."));
    expect(open[0]).toBe("The canvas shows the last valid version. 1 problem in the YAML:");
    expect(open[1]).toContain("line 27, column 29: steps[2].steps[0].output: `{{` is never closed");
    const listed = page.getByRole("region", { name: "Problems" }).getByRole("button");
    expect(await listed.count()).toBe(1);
    await page
      .locator(".canvas-banner")
      .getByRole("button", { name: /^line 27:29 `\{\{` is never closed/ })
      .waitFor();
    await screenshot(page, "editor-problems-agree");
    expect(await axeAudit(page)).toEqual([]);
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    expect(await axeAudit(page)).toEqual([]);
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    await listed.click();
    await poll(() => page.locator(".cm-activeLine").textContent()).toBe('        output: "{{ item }} {{ item."');

    // Closed: no problem in either, and no underline left of it, in the same frame.
    await page.locator(".cm-lintRange-error").waitFor();
    await screenshot(page, "editor-problems-underlined", { fullPage: false });
    await page.keyboard.press("End");
    await page.keyboard.press("ArrowLeft");
    const closed = await firstFrame(false, () => page.keyboard.type("title }}"));
    expect(closed[1]).toContain("No problems");
    expect(closed[2]).toBe("0");
    await screenshot(page, "editor-problems-closed", { fullPage: false });
    expect(await axeAudit(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("builds a parallel of two branches: one from the palette, one more from its panel", async () => {
    const { page, context, errors } = await signedIn(service());
    const original = commented(`branches-${unique()}`);
    await openEditor(page, await createWorkflow(page, original));

    // A parallel from the palette has one branch, and is selected; its panel adds a second, with a step in it.
    await page.getByRole("button", { name: "Add a Parallel step" }).click();
    const panel = page.getByRole("complementary", { name: "Selected step" });
    await panel.getByRole("heading", { name: "step_6" }).waitFor();
    const added = await editorText(page);
    const addBranch = panel.getByRole("button", { name: "Add a branch" });
    await addBranch.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-add-branch.png") });
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-add-branch-dark.png") });
    await page.getByRole("button", { name: "Switch to light theme" }).click();
    await addBranch.click();
    await poll(() => editorText(page)).toBe(
      added.replace(
        "          output: {}\n",
        "          output: {}\n      branch_2:\n        - name: step_8\n          type: transform\n          output: {}\n",
      ),
    );
    await node(page, "step_8").waitFor();
    await panel.getByRole("heading", { name: "step_8" }).waitFor();
    expect(await page.locator('.react-flow__node[data-id="step_6/branch_2"]').count()).toBe(1);
    await whenCanvasStill(page);
    await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, "canvas-add-branch.png") });
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    await page.locator(".canvas-pane").screenshot({ path: join(SCREENSHOTS, "canvas-add-branch-dark.png") });
    expect(await axeAudit(page)).toEqual([]);

    // One step of the undo history.
    await editorContent(page).focus();
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(added);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("gives a new code step the starter of the language picked, which runs, and only the fields it takes", async () => {
    const { page, context, errors } = await signedIn(service());
    await openEditor(page, await createWorkflow(page, commented(`languages-${unique()}`)));
    // Each palette item is named with the article its label is said with.
    expect(await page.getByRole("button", { name: "Add an LLM step" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Add an Agent step" }).count()).toBe(1);

    await page.getByRole("button", { name: "Add a Code step" }).click();
    const panel = page.getByRole("complementary", { name: "Selected step" });
    await panel.getByRole("heading", { name: "step_6" }).waitFor();
    const added = await editorText(page);
    expect(added).toContain('    language: python\n    code: |\n      print("hello")\n');
    const code = panel.getByRole("textbox", { name: /^code/ });
    const command = panel.getByRole("textbox", { name: /^command/ });
    expect([await code.count(), await command.count()]).toEqual([1, 0]);

    await panel.getByRole("combobox", { name: /^language/ }).selectOption("javascript");
    const javascript = added.replace(
      'language: python\n    code: |\n      print("hello")',
      () => 'language: javascript\n    code: |\n      return "hello";',
    );
    await poll(() => editorText(page)).toBe(javascript);
    await poll(() => code.inputValue()).toBe('return "hello";\n');
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-code-javascript.png") });
    const test = panel.getByRole("region", { name: "Test this step" });
    await test.getByRole("button", { name: "Run this step" }).click();
    const result = test.getByRole("status", { name: "Step test result" });
    await poll(() => result.getByLabel("Output of step_6").textContent(), 30_000).toContain("hello");
    expect(await result.locator(".badge").first().textContent()).toBe("COMPLETED");

    // A cli step runs a command, not a script: the panel shows that field only.
    await panel.getByRole("combobox", { name: /^language/ }).selectOption("cli");
    await poll(() => editorText(page)).toBe(
      javascript.replace('javascript\n    code: |\n      return "hello";', "cli\n    command: [echo, hello]"),
    );
    await poll(() => Promise.all([code.count(), command.count()])).toEqual([0, 1]);
    await panel.getByRole("heading", { name: "step_6" }).scrollIntoViewIfNeeded();
    await panel.screenshot({ path: join(SCREENSHOTS, "step-panel-code-cli.png") });
    expect(await axeAudit(page)).toEqual([]);

    // Each switch is one step of the undo history.
    await editorContent(page).focus();
    await page.keyboard.press("ControlOrMeta+z");
    await poll(() => editorText(page)).toBe(javascript);
    // A script someone wrote is theirs: it stays.
    await code.fill('return "mine";');
    await code.press("Tab");
    await poll(() => editorText(page)).toContain('return "mine";');
    await panel.getByRole("combobox", { name: /^language/ }).selectOption("typescript");
    await poll(() => editorText(page)).toContain('language: typescript\n    code: |-\n      return "mine";');
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("draws a 200-step workflow, and follows typing in it (measured, printed)", async () => {
    const { page, context, errors } = await signedIn(service());
    const name = `long-${unique()}`;
    await openEditor(page, await createWorkflow(page, commented(name)));

    await editorContent(page).click();
    await editorFocused(page);
    await page.keyboard.press("ControlOrMeta+a");
    // Past 100 nodes the canvas keeps only those in view in the page, a moment after it first drew them all: the
    // minimap draws every one.
    const drawn = await timeToCanvas(
      page,
      `document.querySelectorAll(".react-flow__minimap-node").length === 200 && document.querySelector('.react-flow__node[data-id="s1"]')`,
      () => page.keyboard.insertText(twoHundred(name)),
    );
    console.log(
      `[canvas] 200 steps: ${drawn.toFixed(0)} ms from setting the text to the canvas drawn (read at once, no pause waited for)`,
    );
    // Zoomed out to see a stretch of it, the arcs of the steps that read the one before them among them.
    for (let i = 0; i < 4; i++) await page.getByRole("button", { name: "Zoom Out" }).click();
    const pane = (await page.locator(".react-flow__pane").boundingBox())!;
    await page.mouse.move(pane.x + 200, pane.y + pane.height - 30);
    await page.mouse.down();
    await page.mouse.move(pane.x + 200, pane.y + pane.height - 290, { steps: 10 });
    await page.mouse.up();
    await screenshot(page, "canvas-200-steps");

    // A keystroke in a step's field: the graph is read again, the layout is kept.
    await editorContent(page).click({ position: LINE_START });
    await page.keyboard.press("ControlOrMeta+Home");
    await endOfLine(page, "timeout: 3");
    const field = await timeToCanvas(
      page,
      `document.querySelector('.react-flow__node[data-id="s3"] .wf-badge-timeout')?.textContent === "timeout 35s"`,
      () => page.keyboard.type("5"),
    );
    // A keystroke in a step's name: a new node id, so all 200 are laid out again.
    await endOfLine(page, "- name: s4");
    const rename = await timeToCanvas(page, `document.querySelector('.react-flow__node[data-id="s4x"]')`, () =>
      page.keyboard.type("x"),
    );
    console.log(
      `[canvas] 200 steps, keystroke to canvas: ${field.toFixed(0)} ms in a field, ${rename.toFixed(0)} ms in a name (read at once after a pause)`,
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
