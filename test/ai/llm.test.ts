import { describe, expect, it } from "vitest";
import { ANTHROPIC_KEY, OPENAI_KEY, eventsOf, model, priced, runToEnd, useAiEnv } from "./support/ai-env";
import { startExecution } from "@wf/shared/client";
import { MAX_OUTPUT_SCHEMA_CHARS } from "@wf/shared/workflow";
import { definitionOf, run, waitForStatus } from "../support/runtime";

const env = useAiEnv();

describe("llm step, OpenAI protocol", () => {
  it("sends the templated prompt, system, temperature and max_tokens with the key; the answer is the output, its tokens the usage", async () => {
    const m = model();
    env().openai.script(m, { text: "Ticket 42 is about billing.", usage: { prompt: 31, completion: 9 } });
    const s = await runToEnd(
      env(),
      `
name: llm-basic
variables:
  ticket: { type: number, default: 42 }
steps:
  - name: summary
    type: llm
    model: ${m}
    system: Be brief.
    prompt: "Summarise ticket {{ vars.ticket }}"
    temperature: 0.2
    max_tokens: 64
`,
    );
    expect(s.status).toBe("COMPLETED");
    expect(s.output).toBe("Ticket 42 is about billing.");
    const [req] = env().openai.requests(m);
    expect(req!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(req!.body).toMatchObject({
      model: m,
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Summarise ticket 42" },
      ],
      temperature: 0.2,
      max_tokens: 64,
    });
    expect(req!.body.stream).toBeUndefined();
    const cost = priced("oa", { prompt: 31, completion: 9 });
    expect(s.steps.summary!.usage).toEqual({ promptTokens: 31, completionTokens: 9, totalTokens: 40, costUsd: cost });
    expect(s.usage).toEqual(s.steps.summary!.usage);
  });

  it("with monitoring, streams the answer as step_delta events in order and reports usage from the stream", async () => {
    const m = model();
    const answer = "Streaming answers arrive piece by piece, and the tail shows them.";
    env().openai.script(m, { text: answer, usage: { prompt: 12, completion: 15 } });
    const id = await run(
      env().rt.platform,
      `
name: llm-stream
steps:
  - { name: talk, type: llm, model: ${m}, prompt: "Say something" }
`,
      { monitoring: true },
    );
    const s = await waitForStatus(env().rt.platform, id);
    expect(s.status).toBe("COMPLETED");
    expect(s.output).toBe(answer);
    expect(env().openai.requests(m)[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const events = await eventsOf(env(), id);
    const deltas = events.filter((e) => e.type === "step_delta");
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.map((e) => e.data.text).join("")).toBe(answer);
    const types = events.map((e) => e.type);
    expect(types.indexOf("step_delta")).toBeLessThan(types.indexOf("step_completed"));
    const usage = events.find((e) => e.type === "step_usage")!;
    expect(usage.step).toBe("talk");
    expect(usage.data).toMatchObject({
      model: m,
      provider: "test-openai",
      promptTokens: 12,
      completionTokens: 15,
      totalTokens: 27,
      costUsd: priced("oa", { prompt: 12, completion: 15 }),
    });
    expect(s.steps.talk!.input).toEqual({ model: m, prompt: "Say something" });
  });

  it("without monitoring, publishes no step_delta (live output only when monitored)", async () => {
    const m = model();
    env().openai.script(m, { text: "quiet answer" });
    const id = await run(
      env().rt.platform,
      `
name: llm-quiet
steps:
  - { name: talk, type: llm, model: ${m}, prompt: hi }
`,
    );
    await waitForStatus(env().rt.platform, id);
    const events = await eventsOf(env(), id);
    expect(events.map((e) => e.type)).not.toContain("step_delta");
    expect(events.map((e) => e.type)).toContain("step_usage");
  });

  it("a 429 with Retry-After is retried and then succeeds; only the answered call is billed", async () => {
    const m = model();
    env().openai.script(
      m,
      { status: 429, headers: { "retry-after": "0" } },
      { status: 503 },
      { text: "third time lucky", usage: { prompt: 5, completion: 3 } },
    );
    const s = await runToEnd(
      env(),
      `
name: llm-429
steps:
  - { name: talk, type: llm, model: ${m}, prompt: hi }
`,
    );
    expect(s.status).toBe("COMPLETED");
    expect(s.output).toBe("third time lucky");
    expect(env().openai.requests(m)).toHaveLength(3);
    expect(s.usage).toMatchObject({ promptTokens: 5, completionTokens: 3, totalTokens: 8 });
  });

  it("rate limits past the retries fail the step naming the provider and the status", async () => {
    const m = model();
    env().openai.script(m, { status: 429 }, { status: 429 }, { status: 429 });
    const s = await runToEnd(
      env(),
      `
name: llm-429-out
steps:
  - { name: talk, type: llm, model: ${m}, prompt: hi }
`,
    );
    expect(s.status).toBe("FAILED");
    expect(s.error).toMatch(/^step `talk`: provider `test-openai` answered 429: .*scripted 429 \(after 3 attempts\)$/);
    expect(env().openai.requests(m)).toHaveLength(3);
    expect(s.usage.totalTokens).toBe(0);
  });

  it("a 400 is not retried, and a retry modifier does not retry it either", async () => {
    const m = model();
    env().openai.script(m, { status: 400 });
    const s = await runToEnd(
      env(),
      `
name: llm-400
steps:
  - { name: talk, type: llm, model: ${m}, prompt: hi, retry: { max_attempts: 3, initial_delay: 0 } }
`,
    );
    expect(s.status).toBe("FAILED");
    expect(s.error).toContain("provider `test-openai` answered 400");
    expect(env().openai.requests(m)).toHaveLength(1);
  });

  it("a model no provider serves fails the step saying so", async () => {
    const s = await runToEnd(
      env(),
      `
name: llm-unrouted
steps:
  - { name: talk, type: llm, model: mystery-model, prompt: hi }
`,
    );
    expect(s.status).toBe("FAILED");
    expect(s.error).toContain("no LLM provider serves model `mystery-model`");
  });
});

describe("llm step: output_schema", () => {
  const schema = `
    output_schema:
      type: object
      required: [category, urgent]
      properties:
        category: { type: string, enum: [billing, bug, other] }
        urgent: { type: boolean }`;

  /** One `classify` llm step on model `m` with the schema above, run to its end. */
  const classify = (m: string, name: string) =>
    runToEnd(
      env(),
      `
name: ${name}
steps:
  - name: classify
    type: llm
    model: ${m}
    prompt: Classify the ticket${schema}
`,
    );

  it("asks for structured output; a valid answer is the parsed output", async () => {
    const m = model();
    env().openai.script(m, { text: '{"category": "billing", "urgent": true}' });
    const s = await classify(m, "llm-schema");
    expect(s.status).toBe("COMPLETED");
    expect(s.output).toEqual({ category: "billing", urgent: true });
    const body = env().openai.requests(m)[0]!.body;
    expect(body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { schema: { type: "object", required: ["category", "urgent"] } },
    });
  });

  it("an invalid answer gets one repair attempt that sees what was wrong", async () => {
    const m = model();
    env().openai.script(
      m,
      { text: '{"category": "sales"}', usage: { prompt: 10, completion: 4 } },
      { text: '```json\n{"category": "other", "urgent": false}\n```', usage: { prompt: 30, completion: 6 } },
    );
    const s = await classify(m, "llm-repair");
    expect(s.status).toBe("COMPLETED");
    expect(s.output).toEqual({ category: "other", urgent: false });
    const [, repair] = env().openai.requests(m);
    const messages = repair!.body.messages as { role: string; content: string }[];
    expect(messages.at(-2)).toEqual({ role: "assistant", content: '{"category": "sales"}' });
    expect(messages.at(-1)!.content).toMatch(/must have required property 'urgent'/);
    expect(messages.at(-1)!.content).toMatch(/must be equal to one of the allowed values/);
    expect(s.usage).toMatchObject({ promptTokens: 40, completionTokens: 10, totalTokens: 50 });
  });

  it("a second invalid answer fails the step clearly", async () => {
    const m = model();
    env().openai.script(m, { text: "not json at all" }, { text: '{"category": 7, "urgent": "yes"}' });
    const s = await classify(m, "llm-schema-fail");
    expect(s.status).toBe("FAILED");
    expect(s.error).toMatch(
      /^step `classify`: the answer does not satisfy `output_schema` after one repair attempt: \/category must be string/,
    );
    expect(env().openai.requests(m)).toHaveLength(2);
  });

  it("a schema past the bound, in a definition stored before it, fails the step without a call", async () => {
    const m = model();
    const definition = definitionOf(`
name: llm-schema-large
steps:
  - { name: classify, type: llm, model: ${m}, prompt: Classify the ticket, output_schema: { type: object } }
`);
    const step = definition.steps[0] as { output_schema: Record<string, unknown> };
    step.output_schema = { type: "object", description: "d".repeat(MAX_OUTPUT_SCHEMA_CHARS) };
    const id = await startExecution(env().rt.platform.js, env().rt.platform.config.WF_NAMESPACE, {
      workflow: { id: "wf-llm-schema-large", name: definition.name, ownerId: "owner1", version: null, definition },
      inputs: {},
      triggerSource: "console",
      enableMonitoring: false,
    });
    const s = await waitForStatus(env().rt.platform, id);
    expect(s.status).toBe("FAILED");
    expect(s.error).toBe(
      "step `classify`: `output_schema` is 16,418 characters of JSON, more than the 16,384 allowed: describe the answer with a smaller schema",
    );
    expect(env().openai.requests(m)).toHaveLength(0);
  });
});

describe("llm step, Anthropic protocol", () => {
  it("answers with the key in x-api-key and the system apart; usage as reported", async () => {
    const m = model("claude");
    env().anthropic.script(m, { text: "Bonjour.", usage: { prompt: 21, completion: 4 } });
    const s = await runToEnd(
      env(),
      `
name: claude-basic
steps:
  - { name: fr, type: llm, model: ${m}, system: Answer in French., prompt: Hello }
`,
    );
    expect(s.status).toBe("COMPLETED");
    expect(s.output).toBe("Bonjour.");
    const [req] = env().anthropic.requests(m);
    expect(req!.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    expect(req!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(req!.body).toMatchObject({
      system: "Answer in French.",
      messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
      max_tokens: 4096,
    });
    expect(s.usage).toEqual({
      promptTokens: 21,
      completionTokens: 4,
      totalTokens: 25,
      costUsd: priced("claude", { prompt: 21, completion: 4 }),
    });
  });

  it("streams with monitoring; output_schema goes in the prompt and is validated", async () => {
    const m = model("claude");
    env().anthropic.script(m, { text: '{"n": 3}', pieces: ['{"n', '": ', "3}"], usage: { prompt: 40, completion: 6 } });
    const id = await run(
      env().rt.platform,
      `
name: claude-stream
steps:
  - name: count
    type: llm
    model: ${m}
    prompt: How many?
    output_schema: { type: object, required: [n], properties: { n: { type: integer } } }
`,
      { monitoring: true },
    );
    const s = await waitForStatus(env().rt.platform, id);
    expect(s.status).toBe("COMPLETED");
    expect(s.output).toEqual({ n: 3 });
    const body = env().anthropic.requests(m)[0]!.body;
    expect(body.stream).toBe(true);
    expect(String(body.system)).toContain('"required":["n"]');
    const events = await eventsOf(env(), id);
    expect(
      events
        .filter((e) => e.type === "step_delta")
        .map((e) => e.data.text)
        .join(""),
    ).toBe('{"n": 3}');
    expect(s.usage).toMatchObject({ promptTokens: 40, completionTokens: 6, totalTokens: 46 });
  });
});

describe("usage totals and the budget", () => {
  it("the execution's usage is the sum of every call of every step, to the token, cost included", async () => {
    const a = model();
    const b = model("claude");
    env().openai.script(a, { text: "one", usage: { prompt: 101, completion: 17 } });
    env().anthropic.script(b, { text: "two", usage: { prompt: 203, completion: 29 } });
    env().openai.script(a, { text: "three", usage: { prompt: 307, completion: 41 } });
    const s = await runToEnd(
      env(),
      `
name: usage-sum
steps:
  - { name: first, type: llm, model: ${a}, prompt: one }
  - { name: second, type: llm, model: ${b}, prompt: "{{ steps.first.output }} then two" }
  - { name: third, type: llm, model: ${a}, prompt: three }
`,
    );
    expect(s.status).toBe("COMPLETED");
    const oa = env().openai.usage(a);
    const cl = env().anthropic.usage(b);
    expect(s.usage.promptTokens).toBe(oa.prompt + cl.prompt);
    expect(s.usage.completionTokens).toBe(oa.completion + cl.completion);
    expect(s.usage.totalTokens).toBe(oa.prompt + oa.completion + cl.prompt + cl.completion);
    expect(s.usage.costUsd).toBeCloseTo(priced("oa", oa) + priced("claude", cl), 12);
    expect(s.steps.second!.usage).toMatchObject({ promptTokens: 203, completionTokens: 29 });
  });

  it("max_cost stops the execution before the call that would pass it", async () => {
    const m = model();
    // 1000 prompt + 500 completion tokens at $2/$8 per million: $0.006.
    env().openai.script(m, { text: "costly", usage: { prompt: 1000, completion: 500 } }, { text: "never asked" });
    const s = await runToEnd(
      env(),
      `
name: budget
max_cost: 0.005
steps:
  - { name: first, type: llm, model: ${m}, prompt: one }
  - { name: second, type: llm, model: ${m}, prompt: two }
`,
    );
    expect(s.status).toBe("FAILED");
    expect(s.steps.first!.status).toBe("COMPLETED");
    expect(s.steps.second!.status).toBe("FAILED");
    expect(s.error).toMatch(
      /^step `second`: the execution's budget max_cost \$0\.005 would be passed: \$0\.006 spent so far/,
    );
    expect(env().openai.requests(m)).toHaveLength(1);
    expect(s.usage).toMatchObject({ promptTokens: 1000, completionTokens: 500, costUsd: 0.006 });
  });

  it("max_cost with a model the price table does not know fails before calling", async () => {
    const s = await runToEnd(
      env(),
      `
name: budget-unpriced
max_cost: 1
steps:
  - { name: first, type: llm, model: unpriced-model, prompt: one }
`,
    );
    expect(s.status).toBe("FAILED");
    expect(s.error).toContain("model `unpriced-model` has no price in WF_LLM_PRICES");
  });
});
