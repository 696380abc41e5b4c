import { expect, it } from "vitest";
import { axeAudit } from "./axe";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  startExecution,
  TEST_LLM_PRICE,
  untilStatus,
  useSharedConsoleService,
  whenCanvasStill,
} from "./support";

const { service, llm } = useSharedConsoleService();

const WORKFLOW = (name: string, model: string) => `name: ${name}
steps:
  - { name: ticket, type: transform, output: { id: 48213, subject: Invoice totals do not match the order } }
  - name: summary
    type: llm
    model: ${model}
    max_tokens: 300
    prompt: "Summarise this ticket for the on-call engineer in one sentence: {{ steps.ticket.output }}"
  - { name: after, type: transform, output: done }
`;

const FIRST = "Ticket 48213: the invoice totals differ from the order; check the lines and reissue it.";
const THEN = "Ticket 48213 says the invoice does not match the order; compare the lines and send a new one.";

describeInBrowser("the cost of an llm step's test", () => {
  it(
    "shows what the call will cost before it runs; Cancel runs nothing, Run it runs and shows the output and cost",
    { timeout: 120_000 },
    async () => {
      const model = `oa-cost-${Date.now()}`;
      llm().script(model, { text: FIRST, usage: "counted" }, { text: THEN, usage: "counted" });
      const { context, page, errors } = await signedIn(service(), { viewport: { width: 1440, height: 1000 } });
      const workflowId = await createWorkflow(page, WORKFLOW(`step-cost-${Date.now()}`, model));
      const runId = await startExecution(page, workflowId);
      await untilStatus(page, runId, "COMPLETED");
      expect(llm().requests(model)).toHaveLength(1);

      await page.goto(`/console/workflows/${workflowId}`);
      await page.locator('.react-flow__node[data-id="summary"]').waitFor();
      await whenCanvasStill(page);
      await page.locator('.react-flow__node[data-id="summary"]').click();
      const test = page
        .getByRole("complementary", { name: "Selected step" })
        .getByRole("region", { name: "Test this step" });
      const stepTests = async () =>
        (
          await consoleApi<{ items: Array<{ id: string; usage: { costUsd: number } }> }>(
            page,
            "GET",
            `/api/console/executions?workflowId=${workflowId}&triggerSource=step_test`,
          )
        ).json.items;

      await test.getByRole("button", { name: "Run this step" }).click();
      const check = test.getByRole("group", { name: "Cost of this call" });
      await check.getByText(/^This call will cost about \$/).waitFor({ timeout: 30_000 });
      const said = (await check.textContent()) ?? "";
      console.log(`[step cost] ${said}`);
      expect(said).toContain("output tokens (as many as its last run gave)");
      expect(said).toContain(`at ${model} prices`);
      expect(said).toContain("up to 300 output tokens");
      await check.scrollIntoViewIfNeeded();
      await screenshot(page, "step-test-cost-estimate");
      expect(await axeAudit(page)).toEqual([]);
      // The estimate called no model and cost nothing.
      expect(llm().requests(model)).toHaveLength(1);
      expect((await stepTests()).map((e) => e.usage.costUsd)).toEqual([0]);

      await check.getByRole("button", { name: "Cancel" }).click();
      await test.getByRole("button", { name: "Run this step" }).waitFor();
      expect(await test.getByRole("status", { name: "Step test result" }).count()).toBe(0);
      expect(llm().requests(model)).toHaveLength(1);
      expect(await stepTests()).toHaveLength(1);

      await test.getByRole("button", { name: "Run this step" }).click();
      await check.getByRole("button", { name: "Run it" }).click();
      const result = test.getByRole("status", { name: "Step test result" });
      await expect
        .poll(() => result.getByLabel("Output of summary").textContent(), { timeout: 30_000 })
        .toBe(JSON.stringify(THEN));
      await result.getByText(/^cost \$/).waitFor();
      const billed = (await result.getByText(/^cost \$/).textContent()) ?? "";
      console.log(`[step cost] billed: ${billed} (at $${TEST_LLM_PRICE.input}/$${TEST_LLM_PRICE.output} per M tokens)`);
      expect(llm().requests(model)).toHaveLength(2);
      await result.scrollIntoViewIfNeeded();
      await screenshot(page, "step-test-cost-ran");
      expect(await axeAudit(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    },
  );
});
