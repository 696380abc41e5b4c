import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StepTestResponse } from "@wf/shared/api";
import { CostEstimate } from "@wf/shared/execution";
import { storeWorkflow } from "../api/support";
import { PRICES } from "../ai/support/ai-env";
import { LlmTestServer, type Reply } from "../ai/support/llm-server";
import { consoleCall, consoleSession, statusAndCode, stepTestCalls, useConsole } from "./support";

let openai: LlmTestServer;
// Filled before the service starts (hooks run in the order they are registered).
const serviceEnv: Record<string, string> = {};
beforeAll(async () => {
  openai = await LlmTestServer.start("openai");
  serviceEnv.WF_LLM_PROVIDERS = JSON.stringify([
    { name: "estimate-openai", protocol: "openai", baseUrl: openai.baseUrl, apiKey: "sk-estimate-0001", maxRetries: 0 },
  ]);
  serviceEnv.WF_LLM_PRICES = JSON.stringify(PRICES);
});
const env = useConsole({ env: serviceEnv });
afterAll(async () => {
  await openai?.close();
});

const REPORT = [
  "Day one: our logistics partner reported delays at the port of Rotterdam because of a storm, and three containers with spare parts will arrive about a week late.",
  "Day two: the warehouse in Leipzig ran out of packaging material, so outgoing orders were held for six hours until a local supplier delivered 2,400 boxes.",
  "Day three: a customer in Lyon cancelled an order of 120 units after the second delay notice; the account manager offered a 5 % discount on the next order.",
  "Day four: the carrier's tracking API returned errors for most of the afternoon, and the support team answered 87 tickets asking where parcels were.",
  "Day five: the spare parts cleared customs, the backlog shrank to 40 orders, and the team agreed to keep a two-week buffer of packaging from now on.",
].join(" ");

/** Three llm steps, each with its own model so that its scripted answers are its own. */
const WORKFLOW = `
name: estimate-then-run
variables:
  customer: { type: string, default: Ada Lovelace }
steps:
  - name: ticket
    type: transform
    output:
      id: 48213
      customer: Acme Corporation
      priority: high
      subject: Invoice totals do not match the order
      lines: [ { sku: A-1001, qty: 3, price: 19.99 }, { sku: B-2002, qty: 1, price: 249.5 } ]
  - { name: greet, type: llm, model: oa-est-short, prompt: "Say hello to {{ vars.customer }} in five words." }
  - name: review
    type: llm
    model: oa-est-long
    max_tokens: 400
    system: You are a careful operations analyst. Answer in plain English, in at most five sentences, and name the single biggest risk first.
    prompt: ${JSON.stringify(`Here is this week's operations log. ${REPORT} ${REPORT} What should we change next week?`)}
  - name: triage
    type: llm
    model: oa-est-rendered
    prompt: "Summarise this ticket for the on-call engineer in two sentences, then give its priority: {{ steps.ticket.output }}"
  - { name: after, type: transform, output: done }
`;

/** What each step answers in the source run, then in the tested run: other words, of about the same length. */
const ANSWERS: Record<string, { model: string; first: string; then: string }> = {
  greet: { model: "oa-est-short", first: "Hello Ada, lovely to meet you!", then: "Hi Ada, so glad you're here!" },
  review: {
    model: "oa-est-long",
    first:
      "The biggest risk is a single port and carrier: one storm and one API outage held up most of the week. Keep the two-week packaging buffer, and agree a second carrier for urgent orders. Send delay notices once, with a firm date, since the Lyon cancellation followed the second notice. Ask the carrier for status webhooks so support can answer from our side. Review the backlog daily until it is under ten orders.",
    then: "The biggest risk is depending on one carrier and one port: a storm and a tracking outage stalled the week. Line up a second carrier for urgent orders and keep the two-week packaging buffer. Send one delay notice with a firm date instead of several, as Lyon cancelled after the second. Pull tracking into our own status page so support can answer without the carrier. Check the backlog every morning until it drops below ten.",
  },
  triage: {
    model: "oa-est-rendered",
    first:
      "Acme Corporation reports that invoice 48213's totals do not match their order of 3 × A-1001 and 1 × B-2002. Compare the invoice lines with the order and reissue it. Priority: high.",
    then: "Acme Corporation says the totals on ticket 48213's invoice differ from the order (3 × A-1001 at 19.99, 1 × B-2002 at 249.5). Check the invoice lines and send a corrected invoice. Priority: high.",
  },
};

const { stepTest, ended } = stepTestCalls(env);

function answer(text: string): Reply {
  return { text, usage: "counted" };
}

describe("a step test's cost estimate", () => {
  it("prices an llm step's rendered call without calling the model, within 20 % of what the real run is billed", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, WORKFLOW);
    for (const a of Object.values(ANSWERS)) openai.script(a.model, answer(a.first));
    const started = await consoleCall(env(), me, "POST", `/api/console/workflows/${wf.id}/executions`, { body: {} });
    const source = await ended(started.body.executionId as string);
    expect(source.status, source.error ?? "").toBe("COMPLETED");

    const billedTests: number[] = [];
    for (const [step, a] of Object.entries(ANSWERS)) {
      const calls = openai.requests(a.model).length;
      const r = await stepTest(me, wf.id, { step, fromExecution: source.id, estimateOnly: true });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      const run = await ended(StepTestResponse.parse(r.body).executionId);
      expect(run).toMatchObject({ status: "COMPLETED", triggerSource: "step_test", stepTest: { estimateOnly: true } });
      expect(run.usage.costUsd, "an estimate is charged nothing").toBe(0);
      expect(run.steps[step], "the step does not run").toBeUndefined();
      expect(openai.requests(a.model), "no request reached the provider").toHaveLength(calls);
      const estimate = CostEstimate.parse(run.output);
      expect(estimate).toMatchObject({ step, type: "llm", model: a.model, price: PRICES["oa-*"], maxCalls: 1 });
      expect(estimate.outputBasis).toBe("last_run");
      expect(estimate.outputTokens).toBe(source.steps[step]!.usage!.completionTokens);

      openai.script(a.model, answer(a.then));
      const real = await stepTest(me, wf.id, { step, fromExecution: source.id });
      const billed = await ended(StepTestResponse.parse(real.body).executionId);
      expect(billed.status, billed.error ?? "").toBe("COMPLETED");
      const u = billed.usage;
      const off = estimate.costUsd / u.costUsd - 1;
      console.log(
        `${step}: estimate $${estimate.costUsd} (${estimate.inputTokens} in + ${estimate.outputTokens} out), ` +
          `billed $${u.costUsd} (${u.promptTokens} in + ${u.completionTokens} out): ${(off * 100).toFixed(1)} %`,
      );
      expect(Math.abs(off), step).toBeLessThanOrEqual(0.2);
      billedTests.push(u.costUsd);
    }
    // The tests' cost counts in the usage report, apart and in the total, though they are listed apart.
    const report = await consoleCall(env(), me, "GET", "/api/console/usage?days=1");
    const testsCost = billedTests.reduce((a, b) => a + b, 0);
    expect(report.body.stepTests).toMatchObject({ executions: 2 * billedTests.length });
    expect((report.body.stepTests as { costUsd: number }).costUsd).toBeCloseTo(testsCost, 6);
    expect((report.body.total as { costUsd: number }).costUsd).toBeCloseTo(testsCost + source.usage.costUsd, 6);
  });

  it("without a source run assumes a typical answer within max_tokens; a step that is no model call has no estimate", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, WORKFLOW);
    const r = await stepTest(me, wf.id, { step: "review", estimateOnly: true });
    const run = await ended(StepTestResponse.parse(r.body).executionId);
    const estimate = CostEstimate.parse(run.output);
    expect(estimate).toMatchObject({ outputBasis: "assumed", outputTokens: 256, maxOutputTokens: 400 });
    const { input, output } = PRICES["oa-*"];
    expect(estimate.maxCostUsd).toBeCloseTo((estimate.inputTokens * input + 400 * output) / 1e6, 9);

    // An agent step: its first call, and as many calls as its max_turns allows.
    const agent = `${WORKFLOW}agents:
  - { name: helper, model: oa-est-agent, instructions: "You help {{ vars.customer }}.", max_turns: 4 }
`.replace(
      "  - { name: after,",
      "  - { name: ask, type: agent, agent: helper, prompt: Which orders are late? }\n  - { name: after,",
    );
    const asked = await stepTest(me, wf.id, { step: "ask", yaml: agent, estimateOnly: true });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    const priced = CostEstimate.parse((await ended(StepTestResponse.parse(asked.body).executionId)).output);
    expect(priced).toMatchObject({ type: "agent", model: "oa-est-agent", maxCalls: 4, outputBasis: "assumed" });
    expect(openai.requests("oa-est-agent")).toHaveLength(0);

    const refused = await stepTest(me, wf.id, { step: "after", estimateOnly: true });
    expect(statusAndCode(refused)).toEqual([400, "VALIDATION_FAILED"]);
    expect(JSON.stringify(refused.body)).toContain("only an llm or agent step has a cost to estimate");
  });

  it("fails, saying why, when the prompt's expression fails", async () => {
    const me = await consoleSession(env());
    const wf = await storeWorkflow(env(), me.user.id, WORKFLOW);
    const broken = WORKFLOW.replace("{{ steps.ticket.output }}", "{{ $error('no ticket today') }}");
    const r = await stepTest(me, wf.id, { step: "triage", yaml: broken, estimateOnly: true });
    const run = await ended(StepTestResponse.parse(r.body).executionId);
    expect(run.status).toBe("FAILED");
    expect(run.error).toContain("no ticket today");
  });
});
