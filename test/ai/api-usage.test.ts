import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ExecutionResult } from "@wf/shared/api";
import { account, call, ended, storeWorkflow, useApi } from "../api/support";
import { LlmTestServer } from "./support/llm-server";
import { McpHttpTestServer } from "./support/mcp-http-server";
import { LOOPBACK_ALLOWANCE, PRICES, model, priced } from "./support/ai-env";

let openai: LlmTestServer;
let crm: McpHttpTestServer;
// Filled before the API environment starts (hooks run in the order they are registered).
const serviceEnv: Record<string, string> = { ...LOOPBACK_ALLOWANCE };
beforeAll(async () => {
  [openai, crm] = await Promise.all([LlmTestServer.start("openai"), McpHttpTestServer.start()]);
  serviceEnv.WF_LLM_PROVIDERS = JSON.stringify([
    { name: "api-openai", protocol: "openai", baseUrl: openai.baseUrl, apiKey: "sk-api-test-0001" },
  ]);
  serviceEnv.WF_LLM_PRICES = JSON.stringify(PRICES);
});
const api = useApi({ runtime: true, env: serviceEnv });
afterAll(async () => {
  await Promise.all([openai?.close(), crm?.close()]);
});

describe("usage in the v1 API", () => {
  it("the status view and the result carry usage equal to what the provider reported, per step and per execution; agent tool calls are in the step result", async () => {
    const me = await account(api());
    const m = model();
    openai.script(
      m,
      { text: "short summary", usage: { prompt: 1234, completion: 56 } },
      { toolCalls: [{ name: "crm__lookup_ticket", arguments: { id: 3 } }], usage: { prompt: 789, completion: 12 } },
      { text: "ticket 3 is high", usage: { prompt: 901, completion: 34 } },
    );
    const w = await storeWorkflow(
      api(),
      me.user.id,
      `
name: api-usage
agents:
  - { name: helper, model: ${m}, mcp: [ { name: crm, url: "${crm.url}" } ] }
steps:
  - { name: summary, type: llm, model: ${m}, prompt: summarise }
  - { name: look, type: agent, agent: helper, prompt: "look at {{ steps.summary.output }}" }
`,
    );
    const started = await call(api(), "POST", `/api/v1/workflows/${w.id}/executions`, { key: me.key, body: {} });
    expect(started.statusCode).toBe(202);
    const id = (started.json() as { executionId: string }).executionId;
    const view = await ended(api(), me, id);
    expect(view.status, view.error ?? "").toBe("COMPLETED");
    const reported = openai.usage(m);
    const total = {
      promptTokens: reported.prompt,
      completionTokens: reported.completion,
      totalTokens: reported.prompt + reported.completion,
      costUsd: priced("oa", reported),
    };
    expect(view.usage).toEqual({ ...total, costUsd: expect.closeTo(total.costUsd, 12) });
    expect(view.stepResults.summary!.usage).toEqual({
      promptTokens: 1234,
      completionTokens: 56,
      totalTokens: 1290,
      costUsd: priced("oa", { prompt: 1234, completion: 56 }),
    });
    expect(view.stepResults.look!.usage).toMatchObject({ promptTokens: 789 + 901, completionTokens: 12 + 34 });
    expect(view.stepResults.look!.toolCalls).toEqual([
      {
        turn: 1,
        server: "crm",
        tool: "lookup_ticket",
        arguments: { id: 3 },
        result: '{"id":3,"priority":"high"}',
        isError: false,
        durationMs: expect.any(Number),
      },
    ]);

    const result = ExecutionResult.parse(
      (await call(api(), "GET", `/api/v1/executions/${id}/result`, { key: me.key })).json(),
    );
    expect(result.usage).toEqual(view.usage);
    expect(result.stepResults.look!.usage).toEqual(view.stepResults.look!.usage);
    const listed = (await call(api(), "GET", `/api/v1/executions?workflowId=${w.id}`, { key: me.key })).json() as {
      items: { usage: unknown }[];
    };
    expect(listed.items[0]!.usage).toEqual(view.usage);
  });
});
