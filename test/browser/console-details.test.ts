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
  useSharedConsoleService,
  whenCanvasStill,
} from "./support";

const { service } = useSharedConsoleService();

const unique = () => randomBytes(4).toString("hex");

/** expect.poll with a bound fit for a service under test on a busy machine. */
const poll = <T>(read: () => T | Promise<T>, timeout = 10_000) => expect.poll(read, { timeout, interval: 50 });

const node = (page: Page, name: string) => page.locator(`.react-flow__node[data-id="${name}"]`);

/** Whether all of a step's node is within the canvas's pane. */
async function inPane(page: Page, name: string): Promise<boolean> {
  const box = (await node(page, name).boundingBox())!;
  const pane = (await page.locator(".react-flow__pane").boundingBox())!;
  return (
    box.x >= pane.x &&
    box.y >= pane.y &&
    box.x + box.width <= pane.x + pane.width &&
    box.y + box.height <= pane.y + pane.height
  );
}

/** WCAG 2.2's minimum for a pointer target (2.5.8), in CSS pixels as drawn. */
const TARGET = 24;

/** Whether the page scrolls sideways, and whether all of Log out is in the window. */
async function frameFits(page: Page): Promise<{ width: number; sideways: boolean; logOut: boolean }> {
  const box = (await page.getByRole("button", { name: "Log out" }).boundingBox())!;
  return page.evaluate(
    ({ x, right, y, bottom }) => {
      // Runs in the page; the tests' tsconfig has no DOM types.
      const { innerWidth, innerHeight, document } = globalThis as unknown as {
        innerWidth: number;
        innerHeight: number;
        document: { documentElement: { scrollWidth: number } };
      };
      return {
        width: innerWidth,
        sideways: document.documentElement.scrollWidth > innerWidth,
        logOut: x >= 0 && right <= innerWidth && y >= 0 && bottom <= innerHeight,
      };
    },
    { x: box.x, right: box.x + box.width, y: box.y, bottom: box.y + box.height },
  );
}

describeInBrowser("the console's smaller promises", () => {
  it("fits the top bar at any width from a phone's up: Log out in view, no page scrolling sideways", async () => {
    const { context, page, errors } = await signedIn(service(), { viewport: { width: 800, height: 700 } });
    const id = await createWorkflow(
      page,
      `name: narrow-${unique()}\nsteps:\n  - { name: a, type: wait, seconds: 1 }\n`,
    );
    const fitting = (width: number) => ({ width, sideways: false, logOut: true });
    for (const path of ["/console/workflows", `/console/workflows/${id}`]) {
      await page.setViewportSize({ width: 800, height: 700 });
      await page.goto(path);
      await (path.endsWith(id) ? node(page, "a") : page.getByRole("link", { name: /^narrow-/ })).waitFor();
      await poll(() => frameFits(page)).toEqual(fitting(800));
      await screenshot(page, `topbar-800${path.endsWith("workflows") ? "-workflows" : "-editor"}`, { fullPage: false });
      const widths = Array.from({ length: 27 }, (_, i) => 360 + i * 40);
      const found = [];
      for (const width of widths) {
        await page.setViewportSize({ width, height: 700 });
        found.push(await frameFits(page));
      }
      expect(found).toEqual(widths.map(fitting));
    }
    // Just wide enough for the links: the email gives way.
    await page.setViewportSize({ width: 1000, height: 700 });
    await screenshot(page, "topbar-1000-editor", { fullPage: false });
    // Folded into the menu, the links are a click away.
    await page.setViewportSize({ width: 800, height: 700 });
    await page.getByRole("button", { name: "Menu" }).click();
    const usage = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Usage" });
    await usage.waitFor();
    await screenshot(page, "topbar-800-menu", { fullPage: false });
    await usage.click();
    await page.getByRole("heading", { name: "Usage" }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows a step added from the palette in view, on a workflow taller than the canvas", async () => {
    const { context, page, errors } = await signedIn(service());
    const steps = Array.from({ length: 14 }, (_, i) => `  - { name: s${i}, type: wait, seconds: 1 }\n`).join("");
    const id = await createWorkflow(page, `name: tall-${unique()}\nsteps:\n${steps}`);
    await page.goto(`/console/workflows/${id}`);
    await node(page, "s0").waitFor();
    await whenCanvasStill(page);
    await page.getByRole("button", { name: "Add a Transform step" }).click();
    const added = node(page, "step_15");
    await added.waitFor();
    await whenCanvasStill(page);
    const pane = (await page.locator(".wf-canvas").boundingBox())!;
    const box = (await added.boundingBox())!;
    await screenshot(page, "canvas-palette-added");
    expect({
      top: box.y >= pane.y,
      bottom: box.y + box.height <= pane.y + pane.height,
      left: box.x >= pane.x,
      right: box.x + box.width <= pane.x + pane.width,
    }).toEqual({
      top: true,
      bottom: true,
      left: true,
      right: true,
    });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("brings a step selected in the editor to the middle of the canvas at its zoom, the side panel redrawn meanwhile", async () => {
    const { context, page, errors } = await signedIn(service());
    const steps = Array.from({ length: 13 }, (_, i) => `  - { name: s${i}, type: wait, seconds: 1 }\n`).join("");
    const code = `  - name: last\n    type: code\n    language: python\n    code: print(1)\n`;
    const id = await createWorkflow(page, `name: reveal-${unique()}\nsteps:\n${steps}${code}`);
    await page.goto(`/console/workflows/${id}`);
    await node(page, "s0").waitFor();
    await whenCanvasStill(page);
    const viewport = page.locator(".react-flow__viewport");
    const zoom = async () => Number(/scale\(([^)]+)\)/.exec((await viewport.getAttribute("style")) ?? "")?.[1]);
    const before = await zoom();
    // As slow as the slowest machine the suite meets, where the side panel, redrawn for the new step, resizes the pane
    // in the middle of the pan.
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 6 });
    const panel = page.getByRole("complementary", { name: "Selected step" });
    await node(page, "s0").click();
    await panel.getByRole("heading", { name: "s0" }).waitFor();
    await whenCanvasStill(page);
    await page.locator(".cm-line", { hasText: "code: print(1)" }).click();
    await panel.getByRole("heading", { name: "last" }).waitFor();
    await whenCanvasStill(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
    const pane = (await page.locator(".wf-canvas").boundingBox())!;
    const box = (await node(page, "last").boundingBox())!;
    await screenshot(page, "canvas-revealed-with-panel");
    // A pan cut short by the resize stops wherever it was, its zoom mid-curve; one that ends has the step in the middle.
    expect({
      zoom: await zoom(),
      dx: Math.round(box.x + box.width / 2 - (pane.x + pane.width / 2)) || 0,
      dy: Math.round(box.y + box.height / 2 - (pane.y + pane.height / 2)) || 0,
    }).toEqual({ zoom: before, dx: 0, dy: 0 });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("brings the step the editor's cursor ends in into view, though it moved on while the canvas panned to another", async () => {
    const { context, page, errors } = await signedIn(service());
    const steps = Array.from({ length: 13 }, (_, i) => `  - { name: s${i}, type: wait, seconds: 1 }\n`).join("");
    const code = `  - name: last\n    type: code\n    language: python\n    code: print(1)\n`;
    const id = await createWorkflow(page, `name: moved-on-${unique()}\nsteps:\n${steps}${code}`);
    // The page's clock, to stop it while the cursor moves.
    await page.clock.install();
    await page.goto(`/console/workflows/${id}`);
    await node(page, "s0").waitFor();
    await whenCanvasStill(page);
    // Too tall for the pane, the workflow opens at its top. s0 selected first, so that its panel is already open.
    await node(page, "s0").click();
    await page.getByRole("complementary", { name: "Selected step" }).getByRole("heading", { name: "s0" }).waitFor();
    await whenCanvasStill(page);
    const seen = async () => ({ s0: await inPane(page, "s0"), last: await inPane(page, "last") });
    expect(await seen()).toEqual({ s0: true, last: false });
    const lineStart = async (text: string) => {
      const box = (await page.locator(".cm-line", { hasText: text }).boundingBox())!;
      return { x: box.x + 4, y: box.y + 4 };
    };
    // The cursor in last's lines, then back in s0's, the clock stopped meanwhile: the pan to last, which would carry s0
    // out of view, has not moved when s0 is selected, as on a machine where a person's clicks come faster than a frame.
    const [toLast, toFirst] = [await lineStart("code: print(1)"), await lineStart("name: s0,")];
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
    await page.mouse.click(toLast.x, toLast.y);
    await page.keyboard.press("End");
    await poll(() => node(page, "last").getAttribute("class")).toContain("selected");
    await page.mouse.click(toFirst.x, toFirst.y);
    await page.keyboard.press("End");
    await page.clock.resume();
    await poll(() => node(page, "s0").getAttribute("class")).toContain("selected");
    await whenCanvasStill(page);
    expect(await seen()).toEqual({ s0: true, last: false });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("deleting a step others read leaves a problem at each reference's line, and the canvas drawn without the step", async () => {
    const { context, page, errors } = await signedIn(service());
    const id = await createWorkflow(
      page,
      `name: reads-${unique()}\nsteps:\n  - { name: fetch, type: transform, output: [1, 2] }\n  - name: report\n    type: transform\n    output: "{{ steps.fetch.output }}"\n`,
    );
    await page.goto(`/console/workflows/${id}`);
    await node(page, "fetch").waitFor();
    await whenCanvasStill(page);
    await node(page, "fetch").click();
    await page
      .getByRole("complementary", { name: "Selected step" })
      .getByRole("button", { name: "Delete step" })
      .click();
    await poll(() => node(page, "fetch").count()).toBe(0);
    const problems = page.getByRole("region", { name: "Problems" });
    await poll(() => problems.textContent()).toContain("line 5, column 17: steps[0].output: unknown step `fetch`");
    expect(await node(page, "report").count()).toBe(1);
    await screenshot(page, "editor-dangling-reference");
    // The service refuses to save it, at the same place.
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("found by the service when you saved").waitFor();
    expect(await problems.textContent()).toContain("line 5, column 17");
    expect(errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
    await context.close();
  });

  it("draws the debugger's breakpoint toggles as touch targets of at least 24 px", async () => {
    const { context, page, errors } = await signedIn(service());
    const workflowId = await createWorkflow(
      page,
      `name: marks-${unique()}\nsteps:\n  - { name: first, type: transform, output: a }\n  - { name: second, type: transform, output: b }\n`,
    );
    const id = await startExecution(page, workflowId, {
      debug: { breakpoints: [{ type: "before_step", step: "second" }] },
    });
    await page.goto(`/console/executions/${id}/debug`);
    await poll(() => page.getByRole("region", { name: "Pause", exact: true }).textContent(), 20_000).toContain(
      "Paused at second",
    );
    const marks = page.locator(".wf-mark");
    await marks.first().waitFor();
    await whenCanvasStill(page);
    const sizes = await Promise.all((await marks.all()).map(async (mark) => (await mark.boundingBox())!));
    expect(sizes.length).toBe(6);
    for (const size of sizes) expect(Math.min(size.width, size.height)).toBeGreaterThanOrEqual(TARGET);
    await screenshot(page, "debugger-marks");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("draws a phone's approval checkboxes as touch targets of at least 24 px", async () => {
    const { context, page, errors } = await signedIn(service(), { viewport: { width: 375, height: 812 } });
    await startExecution(
      page,
      await createWorkflow(
        page,
        `name: phone-${unique()}
steps:
  - name: apply
    type: transform
    manual_approval:
      message: Notify them?
      timeout: 3600
      groups:
        - name: rows
          title: People
          items: [{ who: Ada, notify: true }, { who: Grace, notify: false }]
          columns:
            - { key: who, title: Who, type: string }
            - { key: notify, title: Notify, type: boolean, editable: true }
    output: "{{ approval.rows }}"
`,
      ),
    );
    let approvalId = "";
    await poll(async () => {
      approvalId =
        (await consoleApi<{ approvals: { id: string }[] }>(page, "GET", "/api/console/approvals?status=PENDING")).json
          .approvals[0]?.id ?? "";
      return approvalId;
    }, 20_000).not.toBe("");
    await page.goto(`/console/approvals/${approvalId}`);
    const boxes = page.getByRole("checkbox");
    await boxes.first().waitFor();
    const sizes = await Promise.all((await boxes.all()).map(async (box) => (await box.boundingBox())!));
    expect(sizes.length).toBe(2);
    for (const size of sizes) expect(Math.min(size.width, size.height)).toBeGreaterThanOrEqual(TARGET);
    await screenshot(page, "approval-checkboxes-phone");
    expect(errors).toEqual([]);
    await context.close();
  });
});
