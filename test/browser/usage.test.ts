import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LOOPBACK_ALLOWANCE, PRICES, model, priced } from "../ai/support/ai-env";
import { LlmTestServer } from "../ai/support/llm-server";
import { uniqueNamespace } from "../support/runtime";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  startExecution,
  untilStatus,
  useConsoleService,
} from "./support";

let openai: LlmTestServer;
// Registered before useConsoleService's: the service's env is read once the provider listens.
beforeAll(async () => {
  openai = await LlmTestServer.start("openai");
});
const service = useConsoleService({
  env: () => ({
    ...LOOPBACK_ALLOWANCE,
    WF_LLM_PROVIDERS: JSON.stringify([
      { name: "browser-openai", protocol: "openai", baseUrl: openai.baseUrl, apiKey: "sk-browser-test-0001" },
    ]),
    WF_LLM_PRICES: JSON.stringify(PRICES),
  }),
});
afterAll(async () => {
  await openai?.close();
});

/** The cells of the row of `table` whose first cell is `first`. */
async function rowCells(page: Page, table: string, first: string): Promise<string[]> {
  const row = page
    .getByRole("table", { name: table })
    .getByRole("row")
    .filter({ has: page.getByRole("cell", { name: first, exact: true }) });
  return row.getByRole("cell").allTextContents();
}

/** The figure under a label of the totals. */
const total = (page: Page, label: string) =>
  page.locator(".usage-totals div", { has: page.getByText(label, { exact: true }) }).locator("dd");

describeInBrowser("the usage page", () => {
  it("shows an llm step's tokens as the provider reported them and its cost from the price table, by day and by workflow, and a key's requests against the plan", async () => {
    const { context, page, errors } = await signedIn(service());
    await page.goto("/console/usage");
    await page.getByText("Nothing in the last 30 days").waitFor();

    const m = model();
    openai.script(m, { text: "a short summary", usage: { prompt: 1234, completion: 56 } });
    const name = `usage-${uniqueNamespace()}`;
    const yaml = `name: ${name}\nsteps:\n  - { name: summary, type: llm, model: ${m}, prompt: summarise }\n`;
    const executionId = await startExecution(page, await createWorkflow(page, yaml));
    await untilStatus(page, executionId, "COMPLETED", 20_000);
    const reported = openai.usage(m);
    expect(reported).toEqual({ prompt: 1234, completion: 56 });
    const cost = priced("oa", reported);
    // formatCost shows amounts under a cent to the micro-dollar.
    const shownCost = `$${cost.toFixed(6)}`;
    expect(shownCost).toBe("$0.002916");

    // One request with a key of the person's, counted against the plan's limits.
    const key = await consoleApi<{ key: string; name: string }>(page, "POST", "/api/console/keys", {
      name: `usage-key-${uniqueNamespace()}`,
      scopes: ["WORKFLOW_READ"],
    });
    expect(key.status).toBe(201);
    expect(
      (await fetch(`${service().base}/api/v1/workflows`, { headers: { authorization: `Bearer ${key.json.key}` } }))
        .status,
    ).toBe(200);
    await expect
      .poll(
        async () =>
          (await consoleApi<{ keys: { day: { count: number } }[] }>(page, "GET", "/api/console/usage")).json.keys[0]
            ?.day.count,
        {
          timeout: 10_000,
        },
      )
      .toBe(1);

    await page.getByRole("button", { name: "7 days" }).click();
    await expect.poll(() => new URL(page.url()).search).toBe("?days=7");
    await page.reload();
    expect(await page.getByRole("button", { name: "7 days" }).getAttribute("aria-pressed")).toBe("true");

    await expect.poll(() => total(page, "Tokens in").textContent(), { timeout: 10_000 }).toBe("1,234");
    expect(await total(page, "Tokens out").textContent()).toBe("56");
    expect(await total(page, "Cost").textContent()).toBe(shownCost);
    expect(await total(page, "Executions").textContent()).toBe("1");

    const today = new Date().toISOString().slice(0, 10);
    expect(await rowCells(page, "Days with activity", today)).toEqual([today, "1", "1,234", "56", shownCost]);
    expect((await rowCells(page, "By workflow", name)).slice(0, 5)).toEqual([name, "1", "1,234", "56", shownCost]);
    expect(
      await page.getByRole("region", { name: "Executions by status" }).getByRole("listitem").allTextContents(),
    ).toEqual(["COMPLETED1"]);

    const dayMeter = page.getByRole("meter", { name: `${key.json.name}: requests today` });
    expect(await dayMeter.getAttribute("aria-valuenow")).toBe("1");
    expect(await dayMeter.getAttribute("aria-valuemax")).toBe("50000");
    expect(
      await page.getByRole("meter", { name: `${key.json.name}: requests this minute` }).getAttribute("aria-valuemax"),
    ).toBe("300");

    await screenshot(page, "usage");
    expect(errors).toEqual([]);
    await context.close();
  });
});
