import { join } from "node:path";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { axeAudit } from "./axe";
import {
  createWorkflow,
  describeInBrowser,
  screenshot,
  SCREENSHOTS,
  signedIn,
  startExecution,
  unexpectedErrors,
  useSharedConsoleService,
  whenCanvasStill,
} from "./support";

const { service } = useSharedConsoleService();

const unique = () => newId().slice(-10).toLowerCase();

/** expect.poll with a bound fit for a service under test on a busy machine (vitest's default is 1 s). */
const poll = <T>(read: () => T | Promise<T>, timeout = 15_000) => expect.poll(read, { timeout, interval: 100 });

/** A step's status in the list of steps, as its badge reads. */
const stepStatus = async (page: Page, path: string) =>
  (await page.locator(`.steps-table tr[data-step-path="${path}"] .badge`).first().textContent())?.toLowerCase();
/** A step's status on its canvas node. */
const nodeStatus = (page: Page, name: string) =>
  page.locator(`.react-flow__node[data-id="${name}"] .wf-node`).first().getAttribute("data-status");

/**
 * `flaky` fails while the variable `fail` is true (three attempts, a short backoff); then the
 * foreach `each` doubles two items, and `last` ends the run.
 */
const FLAKY = `
variables:
  fail: { type: boolean, default: true }
steps:
  - name: flaky
    type: code
    language: javascript
    code: |
      if (vars.fail) throw new Error("still broken");
      return "fixed";
    retry: { max_attempts: 3, backoff: fixed, initial_delay: 0.2 }
  - name: each
    type: foreach
    items: [1, 2]
    steps:
      - { name: double, type: transform, output: "{{ item * 2 }}" }
  - { name: last, type: transform, output: done }
`;

/** Three branches whose x steps complete at one moment: behind the first after_step pause, two wait their turn. */
const THREE_BRANCHES = `
steps:
  - name: par
    type: parallel
    branches:
      b1: [{ name: x1, type: transform, output: 1 }]
      b2: [{ name: x2, type: transform, output: 2 }]
      b3: [{ name: x3, type: transform, output: 3 }]
  - { name: sum, type: transform, output: "{{ steps.x1.output + steps.x2.output + steps.x3.output }}" }
`;

describeInBrowser("the debugger in the console", () => {
  it("says where each pause is in words, and what failed and what comes next at a failure and a retry", async () => {
    const { page, context, errors } = await signedIn(service());
    const workflowId = await createWorkflow(page, `name: pauses-${unique()}${FLAKY}`);
    const id = await startExecution(page, workflowId, {
      debug: {
        breakpoints: [
          { type: "on_error", step: "flaky" },
          { type: "on_retry", step: "flaky", attempt: 3 },
          { type: "foreach_item", step: "each", index: 1 },
        ],
      },
    });
    await page.goto(`/console/executions/${id}/debug`);
    const pause = page.getByRole("region", { name: "Pause", exact: true });
    const why = pause.locator(".pause-why");
    const failure = pause.locator(".step-error strong");

    await poll(() => why.textContent()).toContain(
      "On error breakpoint bp1 paused the run where attempt 1 of flaky failed.",
    );
    expect(await failure.textContent()).toBe("Attempt 1 failed");
    await page.keyboard.press("F8");
    await poll(() => why.textContent()).toContain("where attempt 2 of flaky failed.");
    expect(await failure.textContent()).toBe("Attempt 2 failed");

    await page.keyboard.press("F8");
    await poll(() => why.textContent()).toContain(
      "On retry breakpoint bp2 paused the run before attempt 3 of flaky, a retry.",
    );
    expect(await failure.textContent()).toBe("Attempt 3 is next; attempt 2 failed");
    expect(await pause.locator(".step-error pre").textContent()).toContain("still broken");
    await screenshot(page, "debugger-retry-pause");
    await page.getByLabel("Variables", { exact: true }).fill('{ "fail": false }');
    await page.getByRole("button", { name: "Apply variables" }).click();
    await poll(() => page.getByRole("region", { name: "Edits" }).textContent()).toContain("false");

    await page.keyboard.press("F8");
    await poll(() => why.textContent()).toContain(
      "Foreach item breakpoint bp3 paused the run before item 1 of the foreach each.",
    );
    expect(await pause.locator(".step-error").count()).toBe(0);
    // The execution's page says the same in its banner.
    await page.goto(`/console/executions/${id}`);
    await poll(() => page.locator(".pause-banner").textContent()).toContain(
      "Paused in the debugger. Foreach item breakpoint bp3 paused the run before item 1 of the foreach each.",
    );
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });

  it("after Abort shows the steps that never ran cancelled, and a refused breakpoint once, gone once the run has ended", async () => {
    const { page, context, errors } = await signedIn(service());
    const workflowId = await createWorkflow(page, `name: abort-${unique()}${FLAKY}`);
    const id = await startExecution(page, workflowId, {
      inputs: { fail: false },
      debug: { breakpoints: [{ type: "before_step", step: "each" }] },
    });
    await page.goto(`/console/executions/${id}/debug`);
    const pause = page.getByRole("region", { name: "Pause", exact: true });
    await poll(() => pause.textContent()).toContain("Paused at each");

    const breakpoints = page.getByRole("region", { name: "Breakpoints" });
    await breakpoints.getByLabel("Type").selectOption("after_step");
    await breakpoints.getByLabel("Step", { exact: true }).fill("nope");
    await breakpoints.getByRole("button", { name: "Add breakpoint" }).click();
    const refusal = breakpoints.getByRole("alert");
    await poll(() => refusal.textContent()).toContain("breakpoints[1].step");
    const said = (await refusal.textContent())!;
    expect(said.split("the workflow has no step nope").length - 1, said).toBe(1);
    expect(said).toContain("The breakpoints were not changed:");
    expect(unexpectedErrors(errors.splice(0), [400])).toEqual([]);
    // Typing scrolled the page: the sticky bars would be drawn mid-page in a full-page shot.
    await page.evaluate("window.scrollTo(0, 0)");
    await screenshot(page, "debugger-refused-breakpoint");

    await page.getByRole("button", { name: "Abort" }).click();
    await page.getByRole("button", { name: "Abort the run" }).click();
    await poll(() => page.locator(".page-head .badge").first().textContent()).toMatch(/cancelled/i);
    expect(await refusal.count()).toBe(0);
    await poll(() => nodeStatus(page, "last")).toBe("cancelled");
    expect(await nodeStatus(page, "flaky")).toBe("completed");
    await page.getByRole("button", { name: "List", exact: true }).click();
    await poll(() => stepStatus(page, "last")).toBe("cancelled");
    expect(await stepStatus(page, "each")).toBe("cancelled");
    expect(await stepStatus(page, "flaky")).toBe("completed");
    await screenshot(page, "debugger-aborted");
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });

  it("lists the branches waiting their turn behind the pause and marks them on the canvas, until each has paused", async () => {
    const { page, context, errors } = await signedIn(service());
    const workflowId = await createWorkflow(page, `name: turns-${unique()}${THREE_BRANCHES}`);
    const id = await startExecution(page, workflowId, {
      debug: { breakpoints: ["x1", "x2", "x3"].map((step) => ({ type: "after_step", step })) },
    });
    await page.goto(`/console/executions/${id}/debug`);
    const pause = page.getByRole("region", { name: "Pause", exact: true });
    const turns = page.getByRole("region", { name: "Waiting their turn" });
    const node = (name: string) => page.locator(`.react-flow__node[data-id="${name}"]`);
    const pausedAt = async () => /Paused at (x\d)/.exec((await pause.textContent()) ?? "")?.[1];
    const waitingOnList = async () =>
      (await turns.count()) === 0 ? [] : (await turns.locator("li button").allTextContents()).sort();

    await poll(waitingOnList).toHaveLength(2);
    const first = (await pausedAt())!;
    const behind = ["x1", "x2", "x3"].filter((x) => x !== first);
    expect(await waitingOnList()).toEqual(behind);
    for (const x of behind) {
      const n = x.slice(1);
      expect(await turns.locator("li", { hasText: x }).textContent()).toContain(
        `branch b${n}Waits after ${x} completed: After step breakpoint bp${n}.`,
      );
      // Told apart from the paused step not by colour alone: in the node's name and its badge's words.
      await poll(() => node(x).getAttribute("aria-label")).toBe(`Step ${x}, waiting its turn`);
      expect(await node(x).getAttribute("class")).toContain("is-waiting");
      expect(await node(x).locator(".badge.status-waiting").textContent()).toBe("waiting");
    }
    expect(await node(first).getAttribute("aria-label")).toBe(`Step ${first}, paused here`);
    expect(await node(first).locator(".badge.status-waiting").count()).toBe(0);
    expect(await page.locator(".command-bar").textContent()).toContain("2 more waiting their turn");

    // A waiting point selects its step: its detail opens, its node is selected on the canvas.
    await turns.getByRole("button", { name: behind[1] }).click();
    await page.getByRole("region", { name: `Step ${behind[1]}` }).waitFor();
    await poll(() => node(behind[1]!).getAttribute("class")).toContain("selected");
    // Bringing the selected node into view panned the paused one out of it: the whole workflow, for the pictures.
    await page.getByRole("button", { name: "Fit View" }).click();
    await whenCanvasStill(page);
    for (const theme of ["light", "dark"] as const) {
      await page.evaluate(`document.documentElement.dataset.theme = "${theme}"`);
      await page.evaluate("window.scrollTo(0, 0)");
      await screenshot(page, `debugger-waiting-${theme}`);
      await page.locator(".run-canvas").screenshot({ path: join(SCREENSHOTS, `debugger-waiting-canvas-${theme}.png`) });
      expect(await axeAudit(page), theme).toEqual([]);
    }
    await page.evaluate(`document.documentElement.dataset.theme = "light"`);

    // The list step view marks them too.
    await page.getByRole("button", { name: "List", exact: true }).click();
    for (const x of behind)
      expect(await page.locator(`.steps-table tr[data-step-path="${x}"] .badge.status-waiting`).textContent()).toBe(
        "waiting its turn",
      );
    await screenshot(page, "debugger-waiting-list-light");
    await page.getByRole("button", { name: "Canvas", exact: true }).click();

    // Each continue lets one of them pause: the list shortens live, and is gone with the last.
    const seen = [first];
    for (const left of [1, 0]) {
      await page.keyboard.press("F8");
      await poll(async () => {
        const at = await pausedAt();
        return at !== undefined && !seen.includes(at);
      }).toBe(true);
      seen.push((await pausedAt())!);
      await poll(async () => (await waitingOnList()).length).toBe(left);
      await poll(() => page.locator(".react-flow__node.is-waiting").count()).toBe(left);
    }
    expect(seen.sort()).toEqual(["x1", "x2", "x3"]);
    expect(await turns.count()).toBe(0);
    await page.keyboard.press("F8");
    await poll(() => page.locator(".page-head .badge").first().textContent()).toMatch(/completed/i);
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });
});
