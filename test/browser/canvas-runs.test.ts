import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  openPage,
  logIn,
  screenshot,
  signedIn,
  startExecution,
  unexpectedErrors,
  TEST_LLM_PRICE,
  useSharedConsoleService,
  createRerunWorkflow,
  whenCanvasStill,
} from "./support";

const { service, llm } = useSharedConsoleService();
const PRICE = TEST_LLM_PRICE;

const unique = () => newId().slice(-10).toLowerCase();

/** expect.poll with a bound fit for a service under test on a busy machine (vitest's default is 1 s). */
const poll = <T>(read: () => T | Promise<T>, timeout = 10_000) => expect.poll(read, { timeout, interval: 100 });

/** A step's node on the canvas (xyflow names its nodes by id: the step name). */
const node = (page: Page, name: string) => page.locator(`.react-flow__node[data-id="${name}"]`);
const nodeStatus = (page: Page, name: string) =>
  node(page, name).locator(".wf-node").first().getAttribute("data-status");
/** The node says where the debug run waits. */
const isPaused = (page: Page, name: string) => node(page, name).getByText("paused here", { exact: true }).count();
/** The before-step mark in a node's breakpoint gutter ("Break before <name>"). */
const mark = (page: Page, name: string) =>
  node(page, name).getByRole("button", { name: new RegExp(` before ${name}$`) });
const headerStatus = async (page: Page) =>
  (await page.locator(".page-head .badge").first().textContent())?.toLowerCase();

describeInBrowser("runs on the canvas", () => {
  it("shows a run on the canvas, its nodes turning running then completed live, a node's step in full, and the list a click away", async () => {
    const { person, page, context, errors } = await signedIn(service());
    // `hold` runs until the test has seen it running: its provider answers once released, whatever
    // the page's load took on a busy machine.
    let release!: () => void;
    const model = `oa-hold-${unique()}`;
    llm().script(model, { text: "held", held: new Promise<void>((resolve) => (release = resolve)) });
    const workflowId = await createWorkflow(
      page,
      `
name: canvas-live-${unique()}
steps:
  - { name: prepare, type: transform, output: { greeting: hello } }
  - { name: hold, type: llm, model: ${model}, prompt: Wait for the test }
  - name: each
    type: foreach
    items: [1, 2]
    steps:
      - { name: double, type: transform, output: "{{ item * 2 }}" }
  - name: both
    type: parallel
    branches:
      left:
        - { name: left_one, type: transform, output: L }
      right:
        - { name: right_one, type: transform, output: R }
`,
    );
    const id = await startExecution(page, workflowId);
    await page.goto(`/console/executions/${id}`);
    await node(page, "hold").waitFor();
    // Set once: a reload would lose it, so finding it at the end proves the page was never reloaded.
    await page.evaluate("window.notReloaded = true");

    await poll(() => nodeStatus(page, "hold"), 15_000).toBe("running");
    release();
    await poll(() => nodeStatus(page, "hold"), 20_000).toBe("completed");
    await poll(() => headerStatus(page), 20_000).toBe("completed");
    expect(await page.evaluate("window.notReloaded")).toBe(true);
    for (const name of ["prepare", "each", "double", "both", "left_one", "right_one"])
      expect(await nodeStatus(page, name), name).toBe("completed");
    // The steps as a list are the default no more, but a click away (and back).
    expect(await page.locator(".steps-table").count()).toBe(0);

    await whenCanvasStill(page);

    await node(page, "prepare").click();
    const detail = page.getByRole("region", { name: "Step prepare" });
    await poll(() => detail.locator("pre.step-output").textContent()).toContain('"greeting": "hello"');
    // A foreach lists its items: one opens the step it ran first.
    await node(page, "each").getByRole("button", { name: "2 items" }).first().click();
    await node(page, "each").getByRole("button", { name: "item 1 completed" }).click();
    await poll(() =>
      page.getByRole("region", { name: "Step each[1].double" }).locator("pre.step-output").textContent(),
    ).toBe("4");
    await node(page, "each").getByRole("button", { name: "2 items" }).first().click();
    await screenshot(page, "canvas-run");

    await page.getByRole("button", { name: "List", exact: true }).click();
    await page.locator('.steps-table tr[data-step-path="hold"]').waitFor();
    expect(new URL(page.url()).searchParams.get("steps")).toBe("list");
    await page.getByRole("button", { name: "Canvas", exact: true }).click();
    await node(page, "hold").waitFor();
    expect(errors).toEqual([]);

    // The run keeps the definition it ran: its canvas outlives the workflow (laid out afresh, the workflow's layout
    // gone with it).
    expect((await consoleApi(page, "DELETE", `/api/console/workflows/${workflowId}`)).status).toBe(204);
    await page.reload();
    await poll(() => nodeStatus(page, "right_one")).toBe("completed");
    expect(unexpectedErrors(errors, [404])).toEqual([]);
    await context.close();

    const dark = await openPage(service(), { colorScheme: "dark" });
    await logIn(dark.page, person);
    await dark.page.goto(`/console/executions/${id}`);
    await poll(() => nodeStatus(dark.page, "both")).toBe("completed");
    await screenshot(dark.page, "canvas-run-dark");
    await dark.context.close();
  }, 90_000);

  it("debugs on the canvas: a breakpoint set at a node's gutter, the pause there, a variable edited, F10 and F8, the edit in the next step's output", async () => {
    const { page, context, errors } = await signedIn(service());
    const workflowId = await createWorkflow(
      page,
      `
name: canvas-debug-${unique()}
variables:
  who: { type: string, default: world }
steps:
  - { name: first, type: transform, output: start }
  - { name: greet, type: transform, output: "hello {{ vars.who }}" }
  - { name: last, type: transform, output: "{{ steps.greet.output }}!" }
`,
    );
    // Paused before its first step, as the editor's debug run starts.
    const id = await startExecution(page, workflowId, {
      debug: { breakpoints: [{ type: "before_step", step: "first" }] },
    });
    await page.goto(`/console/executions/${id}/debug`);
    const pause = page.getByRole("region", { name: "Pause", exact: true });
    await poll(() => pause.textContent(), 15_000).toContain("Paused at first");
    await poll(() => isPaused(page, "first")).toBe(1);
    expect(await mark(page, "first").getAttribute("aria-pressed")).toBe("true");

    expect(await mark(page, "greet").getAttribute("aria-pressed")).toBe("false");
    await mark(page, "greet").click();
    const breakpoints = page.getByRole("region", { name: "Breakpoints" });
    await breakpoints.locator('tr[data-breakpoint-id="bp2"]').waitFor();
    expect(await breakpoints.locator('tr[data-breakpoint-id="bp2"]').textContent()).toContain("step greet");
    // The run takes the list on its own time (the PUT is a command to its executor): stored soon after, not at once.
    const stored = async () =>
      (
        await consoleApi<{ breakpoints: { type: string; step?: string }[] }>(
          page,
          "GET",
          `/api/console/executions/${id}`,
        )
      ).json.breakpoints.map((b) => [b.type, b.step]);
    await poll(stored).toEqual([
      ["before_step", "first"],
      ["before_step", "greet"],
    ]);

    await page.keyboard.press("F8");
    await poll(() => pause.textContent(), 15_000).toContain("Paused at greet");
    expect(await pause.textContent()).toContain("Before step breakpoint bp2");
    await poll(() => isPaused(page, "greet")).toBe(1);
    expect(await isPaused(page, "first")).toBe(0);
    await page.getByLabel("Variables", { exact: true }).fill('{ "who": "Ada" }');
    // Typing scrolled the page: the sticky bars would be drawn mid-page in a full-page shot.
    await page.evaluate("window.scrollTo(0, 0)");
    await screenshot(page, "canvas-debugger");
    await page.getByRole("button", { name: "Apply variables" }).click();
    await poll(() => page.getByRole("region", { name: "Edits" }).textContent(), 10_000).toContain('"Ada"');

    await page.keyboard.press("F10");
    await poll(() => pause.textContent(), 15_000).toContain("Paused at last");
    expect(await page.locator('[data-output-of="greet"] pre').textContent()).toBe('"hello Ada"');

    // The execution's page shows the debug run's breakpoints on their nodes too.
    await page.goto(`/console/executions/${id}`);
    await node(page, "greet").waitFor();
    expect(await mark(page, "greet").getAttribute("aria-pressed")).toBe("true");
    await page.getByRole("link", { name: "Debugger", exact: true }).click();
    await poll(() => pause.textContent(), 15_000).toContain("Paused at last");

    await page.keyboard.press("F8");
    await poll(() => headerStatus(page), 15_000).toBe("completed");
    await whenCanvasStill(page);
    await node(page, "last").click();
    await poll(() => page.getByRole("region", { name: "Step last" }).locator("pre.step-output").textContent()).toBe(
      '"hello Ada!"',
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("reruns from a node after a failure: the plan says what is reused and saved, and the rerun's canvas marks the reused node", async () => {
    const { page, context, errors } = await signedIn(service(), { colorScheme: "dark" });
    const { workflowId, model } = await createRerunWorkflow(page, llm(), `canvas-rerun-${unique()}`);
    const id = await startExecution(page, workflowId);
    await page.goto(`/console/executions/${id}`);
    await poll(() => headerStatus(page), 20_000).toBe("failed");
    expect(await nodeStatus(page, "check")).toBe("failed");

    await whenCanvasStill(page);

    await node(page, "check").click();
    await page
      .getByRole("region", { name: "Step check" })
      .getByRole("button", { name: "Rerun from this step" })
      .click();
    const dialog = page.getByRole("dialog", { name: "Rerun from check" });
    const plan = dialog.getByLabel("Rerun plan");
    await plan.waitFor();
    expect(await plan.getByRole("listitem").allTextContents()).toEqual(["↺ ask", "▶ check"]);
    const cost = `$${((1200 * PRICE.input + 300 * PRICE.output) / 1_000_000).toFixed(4)}`;
    expect(await plan.getByRole("note", { name: "Saving" }).textContent()).toContain("1,500 tokens");
    await dialog.getByLabel("Variables (optional)", { exact: true }).fill('{ "fail": false }');
    await dialog.getByRole("button", { name: "Check the plan with these variables" }).click();
    await poll(() => dialog.getByRole("button", { name: "Rerun from check" }).isEnabled()).toBe(true);
    await dialog.getByRole("button", { name: "Rerun from check" }).click();

    await page.waitForURL((url) => url.pathname.startsWith("/console/executions/") && !url.pathname.endsWith(id));
    const saving = page.getByRole("region", { name: "Summary" }).getByRole("note", { name: "Saving" });
    await poll(() => saving.textContent()).toContain("1,500 tokens");
    expect(await saving.textContent()).toContain(cost);
    expect(await saving.textContent()).toContain("ran from check");
    await poll(() => headerStatus(page), 20_000).toBe("completed");
    expect(await nodeStatus(page, "ask")).toBe("reused");
    expect(await nodeStatus(page, "check")).toBe("completed");
    await poll(() => page.locator(".events-table tr[data-event-type=step_reused]").count()).toBe(1);
    await screenshot(page, "canvas-rerun");
    // The reused step's LLM call was not made again.
    expect(llm().requests(model)).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
