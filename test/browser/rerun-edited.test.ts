import type { Locator, Page } from "playwright-core";
import { expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { axeAudit } from "./axe";
import {
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  startExecution,
  unexpectedErrors,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

const unique = () => newId().slice(-10).toLowerCase();

/** expect.poll with a bound fit for a service under test on a busy machine (vitest's default is 1 s). */
const poll = <T>(read: () => T | Promise<T>, timeout = 15_000) => expect.poll(read, { timeout, interval: 100 });

const word = async (badge: Locator) => (await badge.textContent())?.toLowerCase();
const headerStatus = (page: Page) => word(page.locator(".page-head .badge").first());
/** The marks beside a step's name in the list of steps (reused, edited, …). */
const marks = (page: Page, path: string) =>
  page.locator(`.steps-table tr[data-step-path="${path}"] .step-name .badge`).allTextContents();

/** The marks on a step's canvas node. */
const nodeMarks = (page: Page, name: string) =>
  page.locator(`.react-flow__node[data-id="${name}"] .wf-node-run .badge`).allTextContents();

/** Three steps, each on the one before: a debugger's edit of `one` shows in what follows. */
const CHAIN = `
steps:
  - { name: one, type: transform, output: 1 }
  - { name: two, type: transform, output: "{{ steps.one.output + 1 }}" }
  - { name: three, type: transform, output: "{{ steps.two.output * 10 }}" }
`;

/**
 * The page as it is now in each theme: axe finds nothing serious, and a screenshot of each. The theme is set on the
 * document as the header's theme button sets it: an open dialog keeps that button out of reach.
 */
async function inBothThemes(page: Page, name: string): Promise<void> {
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate(`document.documentElement.dataset.theme = "${theme}"`);
    expect(await axeAudit(page), theme).toEqual([]);
    await screenshot(page, `${name}-${theme}`);
  }
}

describeInBrowser("a rerun standing on a debugger's edit", () => {
  it("says so in the rerun dialog's plan, and marks the reused step edited on the rerun's canvas, list, step panel, timeline and comparison", async () => {
    const { page, context, errors } = await signedIn(service());
    const workflowId = await createWorkflow(page, `name: edited-${unique()}${CHAIN}`);
    const id = await startExecution(page, workflowId, {
      debug: { breakpoints: [{ type: "after_step", step: "one" }] },
    });
    await page.goto(`/console/executions/${id}/debug`);
    const pause = page.getByRole("region", { name: "Pause", exact: true });
    await poll(() => pause.textContent()).toContain("Paused at one");
    await page.getByLabel("Output", { exact: true }).fill("5");
    await page.getByRole("button", { name: "Apply output" }).click();
    await poll(() => page.getByRole("region", { name: "Edits" }).textContent()).toContain("5");
    await page.getByRole("button", { name: "Continue F8" }).click();
    await poll(() => headerStatus(page)).toBe("completed");

    await page.goto(`/console/executions/${id}?steps=list`);
    await page.locator('tr[data-step-path="three"]').getByRole("button", { name: "Rerun from this step" }).click();
    const dialog = page.getByRole("dialog", { name: "Rerun from three" });
    const plan = dialog.getByLabel("Rerun plan");
    await plan.waitFor();
    expect(await plan.getByRole("listitem").allTextContents()).toEqual(["↺ one edited", "↺ two", "▶ three"]);
    expect(await plan.getByRole("note", { name: "Edited in the debugger" }).textContent()).toBe(
      "one: reused as edited in the debugger. The steps after it see the value set at the pause, not what the step gave.",
    );
    await poll(() => dialog.getByRole("button", { name: "Rerun from three" }).isEnabled()).toBe(true);
    await inBothThemes(page, "rerun-edited-plan");
    await dialog.getByRole("button", { name: "Rerun from three" }).click();

    await page.waitForURL((url) => url.pathname.startsWith("/console/executions/") && !url.pathname.endsWith(id));
    await poll(() => headerStatus(page)).toBe("completed");
    expect(await page.getByRole("note", { name: "Saving" }).textContent()).toContain(
      "one was reused as edited in the debugger.",
    );
    // Started from a row of the list, the rerun's page shows its steps as a list; the marks are waited for.
    await page.getByRole("button", { name: "List", exact: true, pressed: true }).waitFor();
    await poll(() => marks(page, "one")).toEqual(["reused", "edited"]);
    expect(await marks(page, "two")).toEqual(["reused"]);
    expect(await marks(page, "three")).toEqual([]);
    // The canvas marks the node as the list does.
    await page.getByRole("button", { name: "Canvas", exact: true }).click();
    await poll(() => nodeMarks(page, "one")).toEqual(["reused", "edited"]);
    expect(await nodeMarks(page, "two")).toEqual(["reused"]);
    await inBothThemes(page, "rerun-edited-canvas");
    await page.getByRole("button", { name: "List", exact: true }).click();
    await page.getByRole("button", { name: "one", exact: true }).click();
    const step = page.getByRole("region", { name: "Step one" });
    await poll(() => step.getByRole("note", { name: "Edited in the debugger" }).count()).toBe(1);
    expect(await step.locator(".badge").allTextContents()).toEqual(expect.arrayContaining(["reused", "edited"]));
    expect(await step.locator("pre.step-output").textContent()).toBe("5");
    await inBothThemes(page, "rerun-edited-step");

    // The timeline marks it beside the step's name, and says so in the name's label.
    const rerun = new URL(page.url()).pathname.split("/").pop()!;
    await page.goto(`/console/executions/${rerun}?steps=timeline`);
    const row = (name: string) => page.locator(`.timeline-row[data-key] .timeline-label`).filter({ hasText: name });
    await poll(() => row("one").locator(".badge").allTextContents()).toEqual(["edited"]);
    expect(await row("two").locator(".badge").count()).toBe(0);
    expect(
      await page
        .getByRole("button", { name: "one: reused from the execution this one reruns, as edited in the debugger" })
        .count(),
    ).toBe(1);
    await inBothThemes(page, "rerun-edited-timeline");

    // So does the comparison of the two runs, in the rerun's column (B, the newer).
    await page.goto(`/console/executions/compare?a=${id}&b=${rerun}`);
    const compared = async (path: string) =>
      (await page.locator(`tr[data-step-path="${path}"] td .badge`).allTextContents()).map((t) => t.toLowerCase());
    await poll(() => compared("one")).toEqual(["completed", "completed", "edited"]);
    expect(await compared("two")).toEqual(["completed", "completed"]);
    await inBothThemes(page, "rerun-edited-compare");
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });
});
