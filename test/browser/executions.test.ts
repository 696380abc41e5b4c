import { readFile } from "node:fs/promises";
import type { Locator, Page } from "playwright-core";
import { expect, it } from "vitest";
import { ExecutionSnapshot, newId } from "@wf/shared/execution";
import { axeAudit } from "./axe";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  eventPublished,
  holdOwnerStream,
  screenshot,
  signedIn,
  startExecution,
  whenCanvasStill,
  TEST_LLM_PRICE,
  useSharedConsoleService,
  type ConsoleService,
  createRerunWorkflow,
} from "./support";

const { service, llm } = useSharedConsoleService();
const PRICE = TEST_LLM_PRICE;

const unique = () => newId().slice(-10).toLowerCase();

/** expect.poll with a bound fit for a service under test on a busy machine (vitest's default is 1 s). */
const poll = <T>(read: () => T | Promise<T>, timeout = 10_000) => expect.poll(read, { timeout, interval: 100 });

/**
 * A status badge's word as it reads (the badge lower-cases it with CSS; the DOM holds the status as the API says it).
 */
const word = async (badge: Locator) => (await badge.textContent())?.toLowerCase().replaceAll("_", " ");
const stepStatus = (page: Page, path: string) =>
  word(page.locator(`.steps-table tr[data-step-path="${path}"] .badge`).first());
/** Whether the element has the page's focus. */
const isFocused = (element: Locator) => element.evaluate((el) => el === el.ownerDocument.activeElement);
const headerStatus = (page: Page) => word(page.locator(".page-head .badge").first());
/** A figure of the execution page's summary, by its label. */
const fact = (page: Page, label: string) =>
  page
    .getByRole("region", { name: "Summary" })
    .locator("div", { has: page.locator("dt", { hasText: new RegExp(`^${label}$`) }) })
    .locator("dd")
    .textContent();

describeInBrowser("executions in the console", () => {
  it("shows a run's steps turn running then completed live, nested items and branches, a step's output and its artifact's file", async () => {
    const { page, context, errors } = await signedIn(service());
    const u = unique();
    const workflowId = await createWorkflow(
      page,
      `
name: live-${u}
variables:
  who: { type: string, default: Ada }
steps:
  - { name: prepare, type: transform, output: { greeting: "hello {{ vars.who }}" } }
  - { name: hold, type: wait, seconds: 3 }
  - name: write
    type: code
    language: javascript
    code: |
      artifacts.write("report.txt", "report for " + vars.who);
      return { written: "report.txt" };
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
  - { name: settle, type: wait, seconds: 1 }
`,
    );
    const id = await startExecution(page, workflowId);
    // The steps as the nested list (the canvas is the default: canvas-runs.test.ts).
    await page.goto(`/console/executions/${id}?steps=list`);
    await page.getByRole("heading", { name: `Execution ${id}` }).waitFor();
    // Set once: a reload would lose it, so finding it at the end proves the page was never reloaded.
    await page.evaluate("window.notReloaded = true");

    await poll(() => stepStatus(page, "hold"), 10_000).toBe("running");
    await poll(() => stepStatus(page, "hold"), 20_000).toBe("completed");
    await poll(() => headerStatus(page), 20_000).toBe("completed");
    expect(await page.evaluate("window.notReloaded")).toBe(true);
    for (const path of ["prepare", "write", "each", "both", "left_one", "right_one", "settle"])
      expect(await stepStatus(page, path), path).toBe("completed");
    await poll(() => page.locator(".events-table tr[data-event-type=exec_completed]").count()).toBe(1);
    expect(await page.locator(".events-table tr[data-event-type=step_started]").count()).toBeGreaterThanOrEqual(8);

    // Foreach items start folded: opening one shows its steps at their recorded paths.
    expect(await page.locator('tr[data-step-path="each[1].double"]').count()).toBe(0);
    await page.getByRole("button", { name: "Expand item 1" }).click();
    expect(await stepStatus(page, "each[1].double")).toBe("completed");
    await screenshot(page, "execution-detail");

    await page.getByRole("button", { name: "prepare", exact: true }).click();
    const detail = page.getByRole("region", { name: "Step prepare" });
    await poll(() => detail.locator("pre.step-output").textContent()).toContain('"greeting": "hello Ada"');
    await screenshot(page, "execution-step-output");

    await page.getByRole("button", { name: "write", exact: true }).click();
    const written = page.getByRole("region", { name: "Step write" });
    await written.getByRole("tab", { name: "Artifacts (1)" }).click();
    expect(await written.getByRole("cell", { name: "report.txt" }).count()).toBe(1);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      written.getByRole("link", { name: "Download" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("report.txt");
    expect(await readFile(await download.path(), "utf8")).toBe("report for Ada");

    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("cancels a long-running execution after the confirmation, and the page shows it cancelled", async () => {
    const { page, context, errors } = await signedIn(service());
    const workflowId = await createWorkflow(
      page,
      `name: long-${unique()}\nsteps:\n  - { name: hold, type: wait, seconds: 600 }\n  - { name: after, type: transform, output: never }\n`,
    );
    const id = await startExecution(page, workflowId);
    await page.goto(`/console/executions/${id}?steps=list`);
    await poll(() => stepStatus(page, "hold"), 15_000).toBe("running");

    await page.getByRole("button", { name: "Cancel execution" }).click();
    const dialog = page.getByRole("dialog", { name: "Cancel this execution?" });
    // The way out says what it leaves be: "Cancel" beside "Cancel execution" would read as the same thing.
    expect(await dialog.getByRole("button", { name: "Keep running" }).count()).toBe(1);
    await dialog.getByRole("button", { name: "Cancel execution" }).click();
    await poll(() => headerStatus(page), 15_000).toBe("cancelled");
    await poll(() => stepStatus(page, "hold"), 15_000).toBe("cancelled");
    expect(await page.getByRole("button", { name: "Cancel execution" }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("reruns a failed execution from the failed step: the plan shows the reused step and what it saves, and the rerun completes", async () => {
    const { page, context, errors } = await signedIn(service());
    const { workflowId, model } = await createRerunWorkflow(page, llm(), `rerun-${unique()}`);
    const id = await startExecution(page, workflowId);
    await page.goto(`/console/executions/${id}?steps=list`);
    await poll(() => headerStatus(page), 20_000).toBe("failed");
    expect(await page.getByRole("note", { name: "Execution error" }).textContent()).toContain("the check failed");

    await page.locator('tr[data-step-path="check"]').getByRole("button", { name: "Rerun from this step" }).click();
    const dialog = page.getByRole("dialog", { name: "Rerun from check" });
    const plan = dialog.getByLabel("Rerun plan");
    await plan.waitFor();
    expect(await plan.getByRole("listitem").allTextContents()).toEqual(["↺ ask", "▶ check"]);
    const cost = (1200 * PRICE.input + 300 * PRICE.output) / 1_000_000;
    const saving = await plan.getByRole("note", { name: "Saving" }).textContent();
    expect(saving).toContain("1,500 tokens");
    expect(saving).toContain(`$${cost.toFixed(4)}`);

    await dialog.getByLabel("Variables (optional)", { exact: true }).fill('{ "fail": false }');
    await dialog.getByRole("button", { name: "Check the plan with these variables" }).click();
    await poll(() => dialog.getByRole("button", { name: "Rerun from check" }).isEnabled()).toBe(true);
    await screenshot(page, "rerun-plan");
    await dialog.getByRole("button", { name: "Rerun from check" }).click();

    await page.waitForURL((url) => url.pathname.startsWith("/console/executions/") && !url.pathname.endsWith(id));
    await poll(() => headerStatus(page), 20_000).toBe("completed");
    await page.getByRole("button", { name: "List", exact: true }).click();
    // The list view draws its rows after the switch: the badge is waited for, not read at once.
    await poll(() => page.locator('tr[data-step-path="ask"] .badge.reused').count()).toBe(1);
    expect(await page.getByRole("region", { name: "Summary" }).textContent()).toContain(`Rerun of${id}`);
    // The reused step's LLM call was not made again.
    expect(llm().requests(model)).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("reruns with the latest saved version when the steps before the step are unchanged: what differs, what is reused and saved; the page says the version that ran", async () => {
    const { page, context, errors } = await signedIn(service());
    const { workflowId, model } = await createRerunWorkflow(page, llm(), `latest-${unique()}`);
    const id = await startExecution(page, workflowId);
    await page.goto(`/console/executions/${id}?steps=list`);
    await poll(() => headerStatus(page), 20_000).toBe("failed");
    expect(await fact(page, "Version")).toBe("v1");

    // Version 2 mends `check`, as the editor saves it; `ask`, before it, is unchanged.
    const v1 = (await consoleApi<{ yaml: string }>(page, "GET", `/api/console/workflows/${workflowId}`)).json.yaml;
    const v2 = v1
      .replace('return "checked";', 'return "checked by v2";')
      .replace("if (vars.fail) ", "if (vars.fail === null) ");
    expect(
      (await consoleApi(page, "PUT", `/api/console/workflows/${workflowId}`, { yaml: v2, baseVersion: 1 })).status,
    ).toBe(200);

    await page.locator('tr[data-step-path="check"]').getByRole("button", { name: "Rerun from this step" }).click();
    const dialog = page.getByRole("dialog", { name: "Rerun from check" });
    const latest = dialog.getByRole("radio", { name: /^v2, the latest saved/ });
    await poll(() => latest.isChecked()).toBe(true);
    expect(await dialog.getByRole("radio", { name: /^v1, the version this execution ran/ }).isChecked()).toBe(false);
    const changes = dialog.getByLabel("Differences");
    await poll(() => changes.textContent()).toContain('return "checked by v2";');
    expect(await changes.textContent()).toContain('return "checked";');
    const plan = dialog.getByLabel("Rerun plan");
    await poll(() => plan.getByRole("listitem").allTextContents()).toEqual(["↺ ask", "▶ check"]);
    expect(await plan.getByRole("note", { name: "Saving" }).textContent()).toContain("1,500 tokens");
    await screenshot(page, "rerun-latest-version");
    await dialog.getByRole("button", { name: "Rerun from check" }).click();

    await page.waitForURL((url) => url.pathname.startsWith("/console/executions/") && !url.pathname.endsWith(id));
    await poll(() => headerStatus(page), 20_000).toBe("completed");
    await poll(() => fact(page, "Version")).toBe("v2");
    const rerunId = page.url().split("/").pop()!.split("?")[0]!;
    const rerun = await consoleApi<{ steps: Record<string, { output: unknown; reused: boolean }> }>(
      page,
      "GET",
      `/api/console/executions/${rerunId}`,
    );
    expect(rerun.json.steps.check!.output).toBe("checked by v2");
    expect(rerun.json.steps.ask!.reused).toBe(true);
    expect(llm().requests(model)).toHaveLength(1);
    await screenshot(page, "execution-rerun-version");

    // Version 3 changes `ask` too: its recorded answer cannot stand for the new one, so the dialog keeps the version
    // that ran and says why.
    const v3 = v2.replace("prompt: Summarise the ticket", "prompt: Summarise the ticket in French");
    expect(
      (await consoleApi(page, "PUT", `/api/console/workflows/${workflowId}`, { yaml: v3, baseVersion: 2 })).status,
    ).toBe(200);
    await page.goto(`/console/executions/${id}?steps=list`);
    await page.locator('tr[data-step-path="check"]').getByRole("button", { name: "Rerun from this step" }).click();
    await poll(() => dialog.getByRole("radio", { name: /^v1, the version this execution ran/ }).isChecked()).toBe(true);
    expect(await dialog.getByRole("radio", { name: /^v3, the latest saved/ }).isChecked()).toBe(false);
    await poll(() => dialog.getByRole("group", { name: "Version to run" }).textContent()).toContain(
      "v3 changes step ask, which comes before check",
    );
    await poll(() => plan.getByRole("listitem").allTextContents()).toEqual(["↺ ask", "▶ check"]);
    await screenshot(page, "rerun-latest-refused");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    // The refused plan of version 3 is a 409 the dialog asked for on purpose.
    expect(errors.filter((e) => !e.includes("status of 409"))).toEqual([]);
    await context.close();
  }, 90_000);

  it("shows a run's inputs, a link to the approval it waits for, and its final output once it completes", async () => {
    const { page, context, errors } = await signedIn(service());
    const workflowId = await createWorkflow(
      page,
      `
name: gated-${unique()}
variables:
  who: { type: string, required: true }
  times: { type: number, default: 2 }
steps:
  - name: fetch
    type: transform
    output:
      rows:
        - { id: 1, action: "greet {{ vars.who }}" }
  - name: apply
    type: transform
    manual_approval:
      message: "Greet {{ vars.who }}?"
      timeout: 3600
      groups:
        - name: rows
          title: Greetings
          items: "{{ steps.fetch.output.rows }}"
          columns:
            - { key: id, title: ID, type: number }
            - { key: action, title: Action, type: string }
    output: { greeted: "{{ vars.who }}", times: "{{ vars.times }}" }
`,
    );
    const id = await startExecution(page, workflowId, { inputs: { who: "Ada" } });
    await page.goto(`/console/executions/${id}?steps=list`);
    const inputs = page.getByRole("region", { name: "Inputs", exact: true });
    await poll(() => inputs.textContent()).toContain('"who": "Ada"');
    // Defaults applied: what the run was given is what it ran with.
    expect(await inputs.textContent()).toContain('"times": 2');

    const review = page.getByRole("link", { name: "Review the approval" });
    await review.waitFor({ timeout: 20_000 });
    expect(await page.getByRole("status").filter({ hasText: "Waiting for an approval" }).textContent()).toContain(
      "apply",
    );
    expect(await page.getByRole("region", { name: "Output", exact: true }).textContent()).toContain(
      "once the run completes",
    );
    await screenshot(page, "execution-awaiting-approval");
    const approvalId = /\/console\/approvals\/([^/?]+)$/.exec((await review.getAttribute("href")) ?? "")?.[1] ?? "";
    expect(approvalId).not.toBe("");
    await review.click();
    await page.waitForURL(`**/console/approvals/${approvalId}`);
    expect((await consoleApi(page, "POST", `/api/console/approvals/${approvalId}/approve`, {})).status).toBe(200);

    await page.goto(`/console/executions/${id}?steps=list`);
    await poll(() => headerStatus(page), 20_000).toBe("completed");
    const output = page.getByRole("region", { name: "Output", exact: true });
    await poll(() => output.textContent()).toContain('"greeted": "Ada"');
    expect(await page.getByRole("link", { name: "Review the approval" }).count()).toBe(0);
    await screenshot(page, "execution-inputs-output");
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it("debugs a run: the pause at a before-step breakpoint, a variable edited, F10 and F8, the edit in the next step's output", async () => {
    const { page, context, errors } = await signedIn(service(), { colorScheme: "dark" });
    const workflowId = await createWorkflow(
      page,
      `
name: debug-${unique()}
variables:
  who: { type: string, default: world }
steps:
  - { name: first, type: transform, output: start }
  - { name: greet, type: transform, output: "hello {{ vars.who }}" }
  - { name: last, type: transform, output: "{{ steps.greet.output }}!" }
`,
    );
    const id = await startExecution(page, workflowId, {
      debug: { breakpoints: [{ type: "before_step", step: "greet" }] },
    });
    await page.goto(`/console/executions/${id}`);
    await page.getByRole("link", { name: "Open the debugger" }).click({ timeout: 20_000 });
    await page.waitForURL(`**/console/executions/${id}/debug`);
    const pause = page.getByRole("region", { name: "Pause", exact: true });
    await poll(() => pause.textContent()).toContain("Paused at greet");
    expect(await pause.textContent()).toContain("Before step breakpoint bp1");
    expect(await page.getByRole("button", { name: "Continue F8" }).getAttribute("title")).toContain("(F8)");
    expect(await page.getByRole("button", { name: "Step F10" }).getAttribute("title")).toContain("(F10)");
    expect(await page.getByRole("button", { name: "Step into F11" }).getAttribute("title")).toContain("(F11)");
    expect(await page.getByRole("button", { name: "Retry" }).isDisabled()).toBe(true);

    // Breakpoints: one naming no step is refused in words naming the field; a good one is added and removed.
    const breakpoints = page.getByRole("region", { name: "Breakpoints" });
    await breakpoints.getByLabel("Type").selectOption("after_step");
    await breakpoints.getByLabel("Step", { exact: true }).fill("nope");
    await breakpoints.getByRole("button", { name: "Add breakpoint" }).click();
    await poll(() => breakpoints.getByRole("alert").textContent()).toContain("breakpoints[1].step");
    expect(errors.splice(0)).toEqual([
      "Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
    await breakpoints.getByLabel("Step", { exact: true }).fill("last");
    await breakpoints.getByRole("button", { name: "Add breakpoint" }).click();
    await breakpoints.locator('tr[data-breakpoint-id="bp2"]').waitFor();
    await breakpoints.getByRole("button", { name: "Remove breakpoint bp2" }).click();
    await poll(() => breakpoints.locator('tr[data-breakpoint-id="bp2"]').count()).toBe(0);

    const vars = page.getByLabel("Variables", { exact: true });
    expect(JSON.parse(await vars.inputValue())).toEqual({ who: "world" });
    await vars.fill("{ not json");
    expect(await page.getByRole("button", { name: "Apply variables" }).isDisabled()).toBe(true);
    await vars.fill('{ "who": "Ada" }');
    await screenshot(page, "debugger-paused");
    await page.getByRole("button", { name: "Apply variables" }).click();
    await poll(() => page.getByRole("region", { name: "Edits" }).textContent(), 10_000).toContain('"Ada"');

    await page.keyboard.press("F10");
    await poll(() => pause.textContent(), 15_000).toContain("Paused at last");
    expect(await pause.textContent()).toContain("A step command asked to pause here");
    expect(await page.locator('[data-output-of="greet"] pre').textContent()).toBe('"hello Ada"');

    await page.keyboard.press("F8");
    await poll(() => headerStatus(page), 15_000).toBe("completed");
    await page.getByRole("button", { name: "List", exact: true }).click();
    await page.getByRole("button", { name: "last", exact: true }).click();
    await poll(() => page.getByRole("region", { name: "Step last" }).locator("pre.step-output").textContent()).toBe(
      '"hello Ada!"',
    );
    expect(errors).toEqual([]);
    await context.close();
  });

  it("lists 10,000 executions newest first, one page at a time, filtered in the URL, with new executions coming in live", async () => {
    const { page, context, errors, name, workflowId, newest } = await withSeededExecutions("bulk", 10_000);

    // When the first row is in the document, then painted: measured in the page, from navigation start.
    await page.addInitScript({ content: FIRST_ROW_WATCH });
    await page.goto("/console/executions");
    const rows = page.locator('table[aria-label="Executions"] tbody tr');
    await rows.first().waitFor();
    await poll(() => page.evaluate("window.firstRowAt")).not.toBeNull();
    const paintedAt = await page.evaluate<number>("window.firstRowAt");
    // Where the time went: the list's request as the page made it (Resource Timing), from navigation start.
    const [listStart, listEnd] = await page.evaluate<[number, number]>(
      `(() => { const r = performance.getEntriesByType("resource").find((e) => e.name.includes("/api/console/executions?")); return [r.startTime, r.responseEnd]; })()`,
    );
    console.log(
      `[executions list] 10,000 executions: first row painted ${paintedAt.toFixed(0)} ms after navigation; ` +
        `the first page was asked for at ${listStart.toFixed(0)} ms and answered in ${(listEnd - listStart).toFixed(0)} ms`,
    );

    expect(await rows.count()).toBe(50);
    expect(await rows.first().getAttribute("data-execution-id")).toBe(newest[0]);
    expect(await rows.nth(1).getAttribute("data-execution-id")).toBe(newest[1]);
    await poll(() => rows.first().textContent()).toContain(name);
    await page.getByRole("button", { name: "Load more" }).click();
    await poll(() => rows.count()).toBe(100);
    expect(await rows.nth(50).getAttribute("data-execution-id")).toBe(newest[50]);

    // A run started elsewhere comes first, without a reload.
    const fresh = await startExecution(page, workflowId);
    await poll(() => rows.first().getAttribute("data-execution-id"), 15_000).toBe(fresh);
    await poll(() => word(rows.first().locator(".badge")), 15_000).toBe("completed");

    await page.getByLabel("Status").selectOption("FAILED");
    await poll(() => new URL(page.url()).searchParams.get("status")).toBe("FAILED");
    await poll(() => rows.first().getAttribute("data-execution-id")).toBe(
      newest.find((_, i) => seededStatus(10_000 - 1 - i) === "FAILED"),
    );
    expect(new Set((await rows.locator(".badge").allTextContents()).map((t) => t.toLowerCase()))).toEqual(
      new Set(["failed"]),
    );
    await page.getByLabel("Trigger").selectOption("webhook");
    await poll(() => new URL(page.url()).searchParams.get("triggerSource")).toBe("webhook");
    await poll(async () => new Set(await rows.locator("td:nth-child(5)").allTextContents())).toEqual(
      new Set(["webhook"]),
    );

    // The filtered list is a bookmark: opened afresh, it shows the same.
    const bookmarked = page.url();
    await page.goto(bookmarked);
    await rows.first().waitFor();
    expect(await page.getByLabel("Status").inputValue()).toBe("FAILED");
    expect(new Set((await rows.locator(".badge").allTextContents()).map((t) => t.toLowerCase()))).toEqual(
      new Set(["failed"]),
    );
    await page.getByRole("button", { name: "Clear filters" }).click();
    await poll(() => rows.first().getAttribute("data-execution-id")).toBe(fresh);
    await screenshot(page, "executions-list");

    await rows.nth(1).getByRole("link").click();
    await page.getByRole("heading", { name: `Execution ${newest[0]}` }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  }, 240_000);

  it("lists a run that ended while the list's event stream was still connecting", async () => {
    const { page, context, errors } = await signedIn(service());
    const workflowId = await createWorkflow(
      page,
      `name: connecting-${unique()}\nsteps:\n  - { name: only, type: transform, output: done }\n`,
    );
    // The stream starts at the next event: held until the run has ended, it carries none of the run's.
    const release = await holdOwnerStream(page);

    await page.goto("/console/executions");
    await page.getByText("No executions yet").waitFor();
    const id = await startExecution(page, workflowId);
    await eventPublished(page, id, "exec_completed");
    expect(await page.locator(".live-indicator.live-live").count()).toBe(0);

    release();
    await page.locator(".live-indicator.live-live").waitFor();
    const row = page.locator(`table[aria-label="Executions"] tbody tr[data-execution-id="${id}"]`);
    await poll(() => word(row.locator(".badge"))).toBe("completed");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("keeps a page asked for with Load more while new executions make the list refetch", async () => {
    const { page, context, errors, workflowId } = await withSeededExecutions("more", 60);
    await page.goto("/console/executions");
    const rows = page.locator('table[aria-label="Executions"] tbody tr');
    await poll(() => rows.count()).toBe(50);

    // The second page is held back until the list has had every chance to refetch meanwhile.
    const firstPages: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/api/console/executions?") && !r.url().includes("cursor=")) firstPages.push(r.url());
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    await page.route(/\/api\/console\/executions\?.*cursor=/, async (route) => {
      held = true;
      await released;
      await route.continue().catch(() => undefined);
    });
    await page.getByRole("button", { name: "Load more" }).click();
    await poll(() => held).toBe(true);
    const fresh = await startExecution(page, workflowId);
    await eventPublished(page, fresh, "exec_completed");
    // Its events reach the page and ask for a refetch within 2 s (coalesced); before the fix, that refetch cancelled
    // the held page and fetched the first one alone. Waiting for something not to happen needs a span of time.
    await page.waitForTimeout(3_000);
    release();

    // The held page answers first (its offset then repeats a row: the new execution came before it), then the refetch.
    await poll(() => rows.first().getAttribute("data-execution-id"), 15_000).toBe(fresh);
    await poll(
      async () => new Set(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute("data-execution-id")))).size,
    ).toBe(61);
    expect(await rows.count()).toBe(61);
    expect(firstPages.length).toBeGreaterThan(0);
    await rows.nth(50).scrollIntoViewIfNeeded();
    await screenshot(page, "executions-load-more");
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows "Rerun started" over no control: the last row\'s button under it takes a click', async () => {
    const { page, context, errors } = await signedIn(service());
    const { centre } = await lastButtonUnderRerunToast(page);
    // A click where the button is, as a person's (playwright's own click scrolls the button out from under the toast
    // and clicks it there): the button takes it, and opens its dialog.
    await page.mouse.click(centre.x, centre.y);
    await screenshot(page, "rerun-toast-over-list");
    await page.getByRole("dialog", { name: "Rerun from c" }).waitFor({ timeout: 2_000 });
    await page.getByRole("dialog", { name: "Rerun from c" }).getByRole("button", { name: "Cancel" }).click();
    // At the top, as the page opens: scrolled, the sticky header overlaps the summary's links, which axe counts.
    await page.evaluate("window.scrollTo(0, 0)");
    for (const theme of ["light", "dark"] as const) {
      await page.evaluate(`document.documentElement.dataset.theme = "${theme}"`);
      expect(await axeAudit(page), theme).toEqual([]);
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('moves "Rerun started" off the last row\'s button when Tab reaches it, and reads it out', async () => {
    const { page, context, errors } = await signedIn(service());
    const { toast, last } = await lastButtonUnderRerunToast(page);
    // Announced: the notice is in a polite live region, there before the notice came.
    const region = page.getByRole("status").filter({ has: toast });
    expect(await region.getAttribute("aria-live")).toBe("polite");
    // By keyboard, from the row above: Tab until the button has the focus (the row's own controls come first).
    await page
      .locator('tr[data-step-path="b"]')
      .getByRole("button", { name: "Rerun from this step" })
      .evaluate((b) => b.focus({ preventScroll: true }));
    for (let tabs = 0; tabs < 6 && !(await isFocused(last)); tabs++) await page.keyboard.press("Tab");
    expect(await isFocused(last)).toBe(true);
    // The notice still shows, over none of the button and its focus ring (3 px around it).
    expect(await toast.isVisible()).toBe(true);
    const [button, notice] = [(await last.boundingBox())!, (await toast.boundingBox())!];
    const clear =
      notice.x >= button.x + button.width + 3 ||
      notice.x + notice.width <= button.x - 3 ||
      notice.y >= button.y + button.height + 3 ||
      notice.y + notice.height <= button.y - 3;
    expect(clear, JSON.stringify({ button, notice })).toBe(true);
    for (const theme of ["light", "dark"] as const) {
      await page.evaluate(`document.documentElement.dataset.theme = "${theme}"`);
      await screenshot(page, `rerun-toast-keyboard-${theme}`, { fullPage: false });
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it("opens a rerun's page with its steps shown as where it was started: the list from a row, the canvas from a node", async () => {
    const { page, context, errors } = await signedIn(service());
    const id = await completedChainAsList(page, "rerun-view");
    const rerun = async (from: string, was: string) => {
      const dialog = page.getByRole("dialog", { name: `Rerun from ${from}` });
      await poll(() => dialog.getByRole("button", { name: `Rerun from ${from}` }).isEnabled()).toBe(true);
      await dialog.getByRole("button", { name: `Rerun from ${from}` }).click();
      await page.waitForURL((url) => url.pathname.startsWith("/console/executions/") && !url.pathname.endsWith(was));
      return new URL(page.url());
    };

    // From a row of the list: the new run's list, its status and its events, its reused steps marked.
    await page.locator('tr[data-step-path="b"]').getByRole("button", { name: "Rerun from this step" }).click();
    const first = await rerun("b", id);
    expect(first.search).toBe("?steps=list");
    await page.getByRole("button", { name: "List", exact: true, pressed: true }).waitFor();
    await poll(() => headerStatus(page), 20_000).toBe("completed");
    await poll(() => stepStatus(page, "c")).toBe("completed");
    expect(await page.locator('tr[data-step-path="a"] .badge.reused').count()).toBe(1);
    await page.getByRole("region", { name: "Events" }).getByText("All events received").waitFor();
    await screenshot(page, "rerun-opens-list");

    // From a step selected on the canvas: the new run's canvas, as before.
    await page.getByRole("button", { name: "Canvas", exact: true }).click();
    await page.locator('.react-flow__node[data-id="c"]').waitFor();
    await whenCanvasStill(page);
    await page.locator('.react-flow__node[data-id="c"]').click();
    await page.getByRole("region", { name: "Step c" }).getByRole("button", { name: "Rerun from this step" }).click();
    const second = await rerun("c", first.pathname.split("/").pop()!);
    expect(second.search).toBe("");
    await page.getByRole("button", { name: "Canvas", exact: true, pressed: true }).waitFor();
    await page.locator('.react-flow__node[data-id="c"]').waitFor();
    await poll(() => headerStatus(page), 20_000).toBe("completed");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("brings a summary link under the sticky top bar out from under it when Tab reaches it: axe passes", async () => {
    const { page, context, errors } = await signedIn(service(), { viewport: { width: 1280, height: 640 } });
    const workflowId = await createWorkflow(
      page,
      `name: summary-${unique()}\nsteps:\n  - { name: a, type: transform, output: 1 }\n  - { name: b, type: transform, output: 2 }\n`,
    );
    const id = await startExecution(page, workflowId);
    await page.goto(`/console/executions/${id}`);
    await poll(() => headerStatus(page), 20_000).toBe("completed");
    // Drawn in full (the canvas is loaded apart), so that the page's length is final before it is scrolled.
    await page.getByRole("region", { name: "Events" }).getByText("All events received").waitFor();
    await page.locator('.react-flow__node[data-id="b"]').waitFor();
    const summary = page.getByRole("region", { name: "Summary" });
    const workflow = summary.getByRole("link", { name: /^summary-/ });
    // Whether a click at the link's middle lands on it (not on the bar drawn over it).
    const onTop = async () => {
      const box = (await workflow.boundingBox())!;
      const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
      return workflow.evaluate((a, [x, y]) => a.contains(a.ownerDocument.elementFromPoint(x, y)), [x, y]);
    };
    // Scrolled by a person: the workflow's link (16 px high) under the bar, but a sliver of it, where axe finds its
    // target cut by the bar's links (target-size, both of the summary's links).
    const bar = (await page.locator(".topbar").boundingBox())!;
    await page.evaluate(`window.scrollBy(0, ${(await workflow.boundingBox())!.y - (bar.y + bar.height) + 15})`);
    expect(await onTop()).toBe(false);

    // Back to it from the version's link beside it, by keyboard: the page scrolls it out from under the bar.
    await summary.getByRole("link", { name: "v1", exact: true }).evaluate((v) => v.focus({ preventScroll: true }));
    await page.keyboard.press("Shift+Tab");
    expect(await isFocused(workflow)).toBe(true);
    const box = (await workflow.boundingBox())!;
    expect(box.y, JSON.stringify({ box, bar })).toBeGreaterThanOrEqual(bar.y + bar.height);
    expect(await onTop()).toBe(true);
    for (const theme of ["light", "dark"] as const) {
      await page.evaluate(`document.documentElement.dataset.theme = "${theme}"`);
      await screenshot(page, `summary-link-focused-${theme}`, { fullPage: false });
      expect(await axeAudit(page), theme).toEqual([]);
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});

/**
 * A run of three transforms a → b → c of a new workflow named `<prefix>-<id>`, its page open on the list, completed:
 * its id.
 */
async function completedChainAsList(page: Page, prefix: string): Promise<string> {
  const workflowId = await createWorkflow(
    page,
    `
name: ${prefix}-${unique()}
steps:
  - { name: a, type: transform, output: 1 }
  - { name: b, type: transform, output: "{{ steps.a.output + 1 }}" }
  - { name: c, type: transform, output: "{{ steps.b.output + 1 }}" }
`,
  );
  const id = await startExecution(page, workflowId);
  await page.goto(`/console/executions/${id}?steps=list`);
  await poll(() => headerStatus(page), 20_000).toBe("completed");
  return id;
}

/**
 * A rerun of a three-step run from b, started from its page's list, then the new run's list at a laptop's height
 * (1280x640, the page scrolls) scrolled so that the middle of its last row's "Rerun from this step" is under the
 * "Rerun started from b" notice, as a page of its length puts it (asserted, with the notice still showing).
 */
async function lastButtonUnderRerunToast(page: Page) {
  const id = await completedChainAsList(page, "toast");
  await page.locator('tr[data-step-path="b"]').getByRole("button", { name: "Rerun from this step" }).click();
  const dialog = page.getByRole("dialog", { name: "Rerun from b" });
  await poll(() => dialog.getByRole("button", { name: "Rerun from b" }).isEnabled()).toBe(true);
  await dialog.getByRole("button", { name: "Rerun from b" }).click();
  await page.waitForURL((url) => url.pathname.startsWith("/console/executions/") && !url.pathname.endsWith(id));
  const toast = page.locator(".toast", { hasText: "Rerun started from b" });
  await toast.waitFor();
  // A laptop's height: the page scrolls. Started from the list, the rerun's page shows its steps as a list too.
  await page.setViewportSize({ width: 1280, height: 640 });

  const last = page.locator('tr[data-step-path="c"]').getByRole("button", { name: "Rerun from this step" });
  await last.waitFor();
  // boundingBox is relative to the viewport: a scroll brings the button's middle to the toast's, again while the new
  // run's page grows (its output, its events).
  const middle = (box: { x: number; y: number; width: number; height: number }) => ({
    x: box.x + box.width / 2,
    y: box.y + box.height / 2,
  });
  // Drawn in full first: "Compare with…" comes into the page's head once the workflow's runs are read, the events
  // once their stream has ended.
  await page.getByRole("link", { name: "Compare", exact: true }).waitFor();
  await page.getByRole("region", { name: "Events" }).getByText("All events received").waitFor();
  let centre = { x: 0, y: 0 };
  let height = 0;
  await poll(async () => {
    const off = middle((await last.boundingBox())!).y - middle((await toast.boundingBox())!).y;
    const was = height;
    height = await page.evaluate<number>("document.documentElement.scrollHeight");
    // Still where the last scroll put it, as long as a poll before: the page has stopped moving.
    if (Math.abs(off) >= 1 || height !== was) return page.evaluate(`window.scrollBy(0, ${off}), "scrolled by ${off}"`);
    // Where playwright clicks it: its middle.
    centre = middle((await last.boundingBox())!);
    const notice = (await toast.boundingBox())!;
    const covered =
      notice.x < centre.x &&
      centre.x < notice.x + notice.width &&
      notice.y < centre.y &&
      centre.y < notice.y + notice.height;
    return covered || JSON.stringify({ centre, notice });
  }, 3_000).toBe(true);
  expect(await toast.isVisible()).toBe(true);
  return { toast, last, centre };
}

/** Page script (plain JavaScript: this program has no DOM types) noting when the list's first row is first painted. */
const FIRST_ROW_WATCH = `
  window.firstRowAt = null;
  const seen = new MutationObserver(() => {
    if (!document.querySelector('table[aria-label="Executions"] tbody tr')) return;
    seen.disconnect();
    requestAnimationFrame(() => { window.firstRowAt = performance.now(); });
  });
  seen.observe(document, { childList: true, subtree: true });
`;

/** A person signed in, with a one-step workflow of their own and `n` finished executions of it (`newest` first). */
async function withSeededExecutions(prefix: string, n: number) {
  const signed = await signedIn(service());
  const name = `${prefix}-${unique()}`;
  const workflowId = await createWorkflow(
    signed.page,
    `name: ${name}\nsteps:\n  - { name: only, type: transform, output: done }\n`,
  );
  const newest = await seedExecutions(service(), signed.person.id, workflowId, name, n);
  return { ...signed, name, workflowId, newest };
}

const TRIGGERS = ["console", "open_api", "webhook", "schedule"] as const;
const seededStatus = (i: number) => (i % 7 === 3 ? "FAILED" : i % 11 === 5 ? "CANCELLED" : "COMPLETED");

/**
 * Writes `n` finished executions of one workflow straight to the service's store, as executors
 * would have left them, one second apart and ending just now; answers their ids newest first.
 */
async function seedExecutions(
  svc: ConsoleService,
  ownerId: string,
  workflowId: string,
  workflowName: string,
  n: number,
): Promise<string[]> {
  const store = await svc.store();
  const end = Date.now() - 60_000;
  const snapshots = Array.from({ length: n }, (_, i) => {
    const createdAt = end - (n - 1 - i) * 1000;
    const status = seededStatus(i);
    return ExecutionSnapshot.parse({
      id: newId(),
      workflowId,
      workflowName,
      ownerId,
      triggerSource: TRIGGERS[i % TRIGGERS.length],
      status,
      error: status === "FAILED" ? "step `only` failed" : null,
      completedSteps: status === "COMPLETED" ? 1 : 0,
      totalSteps: 1,
      createdAt,
      startedAt: createdAt + 20,
      completedAt: createdAt + 250 + (i % 40) * 10,
      vars: {},
      definition: { name: workflowName, steps: [{ name: "only", type: "transform", output: "done" }] },
      usage: i % 5 === 0 ? { promptTokens: 100, completionTokens: 20, totalTokens: 120, costUsd: 0.00036 } : undefined,
    });
  });
  let next = 0;
  const worker = async () => {
    while (next < snapshots.length) await store.executions.create(snapshots[next++]!);
  };
  await Promise.all(Array.from({ length: 128 }, worker));
  return snapshots.map((s) => s.id).reverse();
}
