import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { blockedSince, LONG_TASKS, pageNow, sampleRunningSteps } from "./live-follow";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  startExecution,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

const STEPS = 300;

/**
 * 300 Bash steps of ~50 ms each (each is seen running: its start is written before it runs): a run of 15 to 30 s here.
 */
function longWorkflow(name: string): string {
  const steps = Array.from(
    { length: STEPS },
    (_, i) => `  - name: s${String(i + 1).padStart(3, "0")}
    type: code
    language: bash
    code: "sleep 0.02; echo ${i}"
`,
  );
  return `name: ${name}\nsteps:\n${steps.join("")}`;
}

/** The running step's node, in the canvas's pane: whether all of it is in view. */
async function runningInView(page: Page): Promise<{ running: string | null; inView: boolean }> {
  return page.evaluate<{ running: string | null; inView: boolean }>(`(() => {
    const pane = document.querySelector(".run-canvas .react-flow");
    const node = document.querySelector('.run-canvas .react-flow__node:has(.wf-node[data-status="running"])');
    if (!pane || !node) return { running: null, inView: false };
    const p = pane.getBoundingClientRect(), n = node.getBoundingClientRect();
    return { running: node.dataset.id, inView: n.top >= p.top && n.bottom <= p.bottom && n.left >= p.left && n.right <= p.right };
  })()`);
}

describeInBrowser("a long run followed live", () => {
  it(
    "follows a 300-step run on the canvas without long tasks, its view on the running step until a person moves it",
    { timeout: 180_000 },
    async () => {
      const { context, page, errors } = await signedIn(service(), { viewport: { width: 1280, height: 900 } });
      await page.addInitScript(LONG_TASKS);
      const workflowId = await createWorkflow(page, longWorkflow(`live-300-${Date.now()}`));
      const id = await startExecution(page, workflowId);
      await page.goto(`/console/executions/${id}`);
      // The first step drawn (the view may have moved past the first already).
      await page.locator(".run-canvas .react-flow__node").first().waitFor();
      const firstPaint = await pageNow(page);

      // Sampled as the run goes: the step running, and whether the canvas shows it.
      const seen = await sampleRunningSteps(page, () => runningInView(page), 600);
      expect((await page.locator(".page-head .badge").first().textContent())?.toLowerCase()).toBe("completed");
      const thread = await blockedSince(page, firstPaint);
      // The summary counted along, to the last step.
      await expect.poll(() => page.getByText(`${STEPS}/${STEPS} completed`).count(), { timeout: 5_000 }).toBe(1);
      const share = thread.share;
      console.log(
        `[live run] ${STEPS} steps followed for ${thread.seconds.toFixed(1)} s: ${thread.tasks} long tasks, ` +
          `longest ${thread.longestMs.toFixed(0)} ms, ${(thread.blockedMs / 1000).toFixed(2)} s blocked (${(share * 100).toFixed(1)} %); ` +
          `${seen.length} running steps sampled, ${seen.filter((s) => s.inView).length} of them in view`,
      );
      await screenshot(page, "live-run-300");
      // Printed above; asserted only far from what a loaded machine does, well below one render per event (13 % when
      // each event rendered the page on a quiet machine, 67 % in the issue): timings are the bench's to judge.
      expect(share).toBeLessThan(0.25);
      // The canvas went with the run: steps far below the first view were shown as they ran.
      expect(seen.length).toBeGreaterThanOrEqual(10);
      expect(seen.filter((s) => Number(s.running.slice(1)) > 20 && s.inView).length).toBeGreaterThanOrEqual(5);
      expect(errors).toEqual([]);
      await context.close();
    },
  );

  it("leaves the view where a person moved it while the run goes on", { timeout: 120_000 }, async () => {
    const { context, page, errors } = await signedIn(service(), { viewport: { width: 1280, height: 900 } });
    const workflowId = await createWorkflow(page, longWorkflow(`live-moved-${Date.now()}`));
    const id = await startExecution(page, workflowId);
    await page.goto(`/console/executions/${id}`);
    await page.locator(".run-canvas .react-flow__node").first().waitFor();
    // A person drags the pane a little: from then on the view is theirs.
    const pane = page.locator(".run-canvas .react-flow__pane");
    const box = (await pane.boundingBox())!;
    await page.mouse.move(box.x + box.width - 40, box.y + 60);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - 80, box.y + 100, { steps: 5 });
    await page.mouse.up();
    const viewport = page.locator(".run-canvas .react-flow__viewport");
    const moved = await viewport.getAttribute("style");
    // 30 steps later the view has not moved.
    const completed = async () =>
      (await consoleApi<{ completedSteps: number }>(page, "GET", `/api/console/executions/${id}`)).json.completedSteps;
    const from = await completed();
    await expect.poll(completed, { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(from + 30);
    expect(await viewport.getAttribute("style")).toBe(moved);
    await screenshot(page, "live-run-moved");
    await page.getByRole("button", { name: "Follow the running step" }).click();
    await expect.poll(async () => (await runningInView(page)).inView, { timeout: 10_000, interval: 100 }).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
