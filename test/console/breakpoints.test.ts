import { afterAll, describe, expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { waitFor } from "@wf/testing";
import { LOOPBACK_ALLOWANCE, OPENAI_KEY, PRICES, model, priced } from "../ai/support/ai-env";
import { LlmTestServer } from "../ai/support/llm-server";
import { McpHttpTestServer } from "../ai/support/mcp-http-server";
import { storeWorkflow } from "../api/support";
import { sideEffects } from "../support/side-effects";
import {
  consoleCall,
  consoleSession,
  debugRunPolls,
  statusAndCode,
  useConsole,
  type Answer,
  type Session,
} from "./support";

/**
 * One test per breakpoint type, each over real HTTP (the console API) against the edge and the
 * executor on a real nats-server: a debug run is started, polled until PAUSED, its pause checked,
 * and the debugger's commands sent, each judged by what the run then does.
 */

// The provider must be known before the runtime starts: the LLM server comes first.
const openai = await LlmTestServer.start("openai");
afterAll(() => openai.close());
const env = useConsole({
  env: {
    WF_LLM_PROVIDERS: JSON.stringify([
      {
        name: "test-openai",
        protocol: "openai",
        baseUrl: openai.baseUrl,
        models: ["oa-*"],
        apiKey: OPENAI_KEY,
        retryBaseMs: 1,
        maxRetries: 2,
      },
    ]),
    WF_LLM_PRICES: JSON.stringify(PRICES),
    // The MCP server (127.0.0.1) and the side-effect servers (127.0.0.2).
    ...LOOPBACK_ALLOWANCE,
  },
});

type View = Record<string, unknown> & {
  status: string;
  error: string | null;
  pause: Pause | null;
  edits: Record<string, unknown>[];
  steps: Record<
    string,
    { status: string; output: unknown; error: string | null; attempts: number; edits: Record<string, unknown>[] }
  >;
};
interface Pause {
  id: string;
  breakpointId: string;
  type: string;
  stepPath: string;
  phase: string;
  occurrence: number;
  context: Record<string, unknown>;
}

/** A user with a stored workflow, starting debug runs of it and driving them over HTTP. */
async function debugging(yaml: string) {
  const me = await consoleSession(env(), "free");
  const wf = await storeWorkflow(env(), me.user.id, yaml);
  const view = async (id: string, who: Session = me): Promise<View> => {
    const r = await consoleCall(env(), who, "GET", `/api/console/executions/${id}`);
    if (r.status !== 200) throw new Error(`GET ${id}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as View;
  };
  const polls = debugRunPolls(view);
  return {
    me,
    wf,
    view,
    async start(breakpoints: Record<string, unknown>[], inputs: Record<string, unknown> = {}): Promise<string> {
      const r = await consoleCall(env(), me, "POST", `/api/console/workflows/${wf.id}/executions`, {
        body: { inputs, debug: { breakpoints } },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      return r.body.executionId as string;
    },
    /** Polls (bounded) until the run waits at a pause other than `after`; an end meanwhile fails the test. */
    async paused(id: string, after?: string): Promise<{ pause: Pause; view: View }> {
      const v = await polls.paused(id, after);
      return { pause: v.pause, view: v };
    },
    ended: polls.ended,
    command(id: string, name: string, body: Record<string, unknown> = {}, who: Session = me): Promise<Answer> {
      return consoleCall(env(), who, "POST", `/api/console/executions/${id}/debug/${name}`, { body });
    },
    /** A command that must win its pause (202). */
    async send(id: string, name: string, body: Record<string, unknown> & { pauseId: string }): Promise<void> {
      const r = await consoleCall(env(), me, "POST", `/api/console/executions/${id}/debug/${name}`, { body });
      expect([r.status, r.body], `${name}: ${JSON.stringify(r.body)}`).toEqual([
        202,
        { executionId: id, command: name, pauseId: body.pauseId },
      ]);
    },
    /** After a `set`: until the executor has recorded `count` edits (the pause stays). */
    async edited(id: string, count: number): Promise<View> {
      return waitFor(
        async () => {
          const v = await view(id);
          return v.edits.length >= count ? v : undefined;
        },
        { timeoutMs: 15_000, what: `execution ${id} to record ${count} edit(s)` },
      );
    },
  };
}

describe("before_step", () => {
  const poking = (fx: { allow: string; url: string }, key: string) => `
name: before-step-skip-${key}
variables:
  who: { type: string, default: world }
steps:
  - name: poke
    type: code
    language: bash
    network: { allow: ["${fx.allow}"] }
    input: { greeting: "hello {{ vars.who }}", n: "{{ 40 + 2 }}" }
    code: |
      curl -s -X POST --data poked ${fx.url}/${key}-poke > /dev/null
      echo '"poked"'
  - name: after
    type: code
    language: bash
    network: { allow: ["${fx.allow}"] }
    code: |
      curl -s -X POST --data after ${fx.url}/${key}-after > /dev/null
      echo '"after ran"'
`;

  it("pauses before a code step with its input rendered; skip leaves it SKIPPED and its side effect never happens", async () => {
    const fx = await sideEffects();
    const key = newId();
    const d = await debugging(poking(fx, key));
    const id = await d.start([{ type: "before_step", step: "poke" }], { who: "Ada" });
    const { pause, view } = await d.paused(id);
    expect(pause).toMatchObject({
      breakpointId: "bp1",
      type: "before_step",
      stepPath: "poke",
      phase: "before",
      context: { input: { greeting: "hello Ada", n: 42 }, vars: { who: "Ada" }, outputs: {} },
    });
    expect(view).toMatchObject({ currentStep: "poke", debug: true });
    expect(view.steps.poke).toBeUndefined();

    await d.send(id, "skip", { pauseId: pause.id });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.poke).toMatchObject({ status: "SKIPPED", output: null });
    expect(done.steps.after).toMatchObject({ status: "COMPLETED", output: "after ran" });
    // The later step reached the server: the skipped one would have too.
    expect([fx.lines(`${key}-poke`), fx.lines(`${key}-after`)]).toEqual([[], ["after"]]);
    expect(done.edits).toEqual([]);
    expect(done.pause).toBeNull();
  });

  it("skip with an output: the step ends COMPLETED with that output, which the edits record, and its side effect never happens", async () => {
    const fx = await sideEffects();
    const key = newId();
    const d = await debugging(poking(fx, key));
    const id = await d.start([{ type: "before_step", step: "poke" }]);
    const { pause } = await d.paused(id);
    expect(pause.context.input).toEqual({ greeting: "hello world", n: 42 });

    await d.send(id, "skip", { pauseId: pause.id, output: { stubbed: true } });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.poke).toMatchObject({ status: "COMPLETED", output: { stubbed: true }, attempts: 0 });
    expect(fx.lines(`${key}-poke`)).toEqual([]);
    expect(fx.lines(`${key}-after`)).toEqual(["after"]);
    expect(done.edits).toEqual([
      {
        pauseId: pause.id,
        stepPath: "poke",
        by: d.me.user.id,
        at: expect.any(Number),
        field: "output",
        before: null,
        after: { stubbed: true },
      },
    ]);
    // The step's result shows the edit too.
    expect(done.steps.poke!.edits).toEqual(done.edits);
    expect(done.steps.after!.edits).toEqual([]);
  });

  it("before an llm step: the pause shows the exact request; set input changes the messages the provider receives", async () => {
    const m = model();
    openai.script(m, { text: "terse answer", usage: { prompt: 5, completion: 2 } });
    const d = await debugging(`
name: before-step-llm
variables:
  who: { type: string, default: world }
steps:
  - name: ask
    type: llm
    model: ${m}
    system: be brief
    prompt: "hi {{ vars.who }}"
`);
    const id = await d.start([{ type: "before_step", step: "ask" }], { who: "Ada" });
    const { pause } = await d.paused(id);
    expect(pause).toMatchObject({ type: "before_step", stepPath: "ask", phase: "before" });
    expect(pause.context.input).toEqual({ model: m, system: "be brief", messages: [{ role: "user", text: "hi Ada" }] });
    expect(openai.requests(m)).toHaveLength(0);

    const input = { system: "be terse", messages: [{ role: "user", text: "hello there" }] };
    await d.send(id, "set", { pauseId: pause.id, input });
    const edited = await d.edited(id, 1);
    expect(edited.status).toBe("PAUSED");
    expect(edited.edits).toEqual([
      expect.objectContaining({ pauseId: pause.id, field: "input", by: d.me.user.id, after: input }),
    ]);
    await d.send(id, "continue", { pauseId: pause.id });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.ask).toMatchObject({ status: "COMPLETED", output: "terse answer" });
    const [request, ...more] = openai.requests(m);
    expect(more).toEqual([]);
    expect(request!.body.messages).toEqual([
      { role: "system", content: "be terse" },
      { role: "user", content: "hello there" },
    ]);
  });
});

describe("after_step", () => {
  it("pauses with the step's output; set output then continue: the next step reads the edited value; the edit names who, before and after", async () => {
    const d = await debugging(`
name: after-step-set
steps:
  - name: a
    type: transform
    output: { n: 1, tag: "{{ 'from ' & 'a' }}" }
  - name: b
    type: transform
    output: "{{ steps.a.output.n + 1 }}"
`);
    const id = await d.start([{ type: "after_step", step: "a" }]);
    const { pause, view } = await d.paused(id);
    expect(pause).toMatchObject({
      type: "after_step",
      stepPath: "a",
      phase: "after",
      context: { output: { n: 1, tag: "from a" }, outputs: { a: { n: 1, tag: "from a" } } },
    });
    expect(view.steps.a).toMatchObject({ status: "COMPLETED", output: { n: 1, tag: "from a" } });
    expect(view.steps.b).toBeUndefined();

    await d.send(id, "set", { pauseId: pause.id, output: { n: 41 } });
    const edited = await d.edited(id, 1);
    expect(edited).toMatchObject({ status: "PAUSED", pause: { id: pause.id, context: { output: { n: 41 } } } });
    await d.send(id, "continue", { pauseId: pause.id });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.a!.output).toEqual({ n: 41 });
    expect(done.steps.b).toMatchObject({ status: "COMPLETED", output: 42 });
    expect(done.edits).toEqual([
      {
        pauseId: pause.id,
        stepPath: "a",
        by: d.me.user.id,
        at: expect.any(Number),
        field: "output",
        before: { n: 1, tag: "from a" },
        after: { n: 41 },
      },
    ]);
  });
});

describe("on_error", () => {
  it("pauses at the failure with its error and attempt; set vars then retry: the step passes and the run completes", async () => {
    const d = await debugging(`
name: on-error-retry
variables:
  fixed: { type: boolean, default: false }
steps:
  - name: gate
    type: code
    language: bash
    code: |
      if [ "$WF_VAR_fixed" = "true" ]; then echo '{"ok": true}'; else echo "not fixed yet" >&2; exit 3; fi
  - name: after
    type: transform
    output: "{{ steps.gate.output.ok }}"
`);
    const id = await d.start([{ type: "on_error", step: "gate" }]);
    const { pause, view } = await d.paused(id);
    expect(pause).toMatchObject({
      type: "on_error",
      stepPath: "gate",
      phase: "error",
      occurrence: 1,
      context: { attempt: 1, retryable: expect.any(Boolean), vars: { fixed: false } },
    });
    expect(pause.context.error).toEqual(expect.stringContaining("not fixed yet"));
    expect(pause.context.error).toEqual(expect.stringMatching(/^step `gate`: /));
    expect(view.steps.gate).toMatchObject({ status: "RUNNING", attempts: 1 });

    await d.send(id, "set", { pauseId: pause.id, vars: { fixed: true } });
    const edited = await d.edited(id, 1);
    expect(edited.edits).toEqual([
      expect.objectContaining({ field: "vars", by: d.me.user.id, before: { fixed: false }, after: { fixed: true } }),
    ]);
    await d.send(id, "retry", { pauseId: pause.id });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.gate).toMatchObject({ status: "COMPLETED", attempts: 2, output: { ok: true }, error: null });
    expect(done.steps.after).toMatchObject({ status: "COMPLETED", output: true });
  });
});

describe("conditional", () => {
  it("pauses before the first step where its expression holds; abort ends the run CANCELLED, the later steps never run", async () => {
    const d = await debugging(`
name: conditional-abort
steps:
  - { name: a, type: transform, output: 1 }
  - { name: b, type: transform, output: "{{ steps.a.output + 1 }}" }
  - { name: c, type: transform, output: "{{ steps.b.output + 1 }}" }
  - { name: d, type: transform, output: "{{ steps.c.output + 1 }}" }
`);
    const id = await d.start([{ type: "conditional", expression: "steps.b.output >= 2" }]);
    const first = await d.paused(id);
    expect(first.pause).toMatchObject({
      type: "conditional",
      breakpointId: "bp1",
      stepPath: "c",
      phase: "before",
      context: { input: 3, outputs: { a: 1, b: 2 } },
    });
    // It holds before every later step too: continue pauses again at the next one.
    await d.send(id, "continue", { pauseId: first.pause.id });
    const second = await d.paused(id, first.pause.id);
    expect(second.pause).toMatchObject({ type: "conditional", stepPath: "d", phase: "before", context: { input: 4 } });
    expect(second.view.steps.c).toMatchObject({ status: "COMPLETED", output: 3 });

    await d.send(id, "abort", { pauseId: second.pause.id });
    const done = await d.ended(id);
    expect(done).toMatchObject({
      status: "CANCELLED",
      error: `execution aborted in the debugger by ${d.me.user.id}`,
      pause: null,
    });
    expect(Object.keys(done.steps).sort()).toEqual(["a", "b", "c"]);
  });
});

describe("watch", () => {
  it("pauses after the step that changed its value, with before and after; step then pauses at the next step boundary", async () => {
    const d = await debugging(`
name: watch-step
variables:
  total: { type: number, default: 5 }
steps:
  - { name: a, type: transform, output: "{{ vars.total }}" }
  - { name: b, type: transform, output: "{{ steps.a.output * 10 }}" }
  - { name: c, type: transform, output: "{{ steps.b.output + 1 }}" }
  - { name: e, type: transform, output: "{{ steps.c.output + 1 }}" }
`);
    const id = await d.start([{ type: "watch", expression: "steps.b.output" }]);
    const { pause } = await d.paused(id);
    expect(pause).toMatchObject({
      type: "watch",
      stepPath: "b",
      phase: "after",
      context: { output: 50, watch: { expression: "steps.b.output", before: null, after: 50 } },
    });

    await d.send(id, "step", { pauseId: pause.id });
    const next = await d.paused(id, pause.id);
    expect(next.pause).toMatchObject({
      breakpointId: "step",
      type: "before_step",
      stepPath: "c",
      phase: "before",
      context: { input: 51 },
    });
    expect(next.view.steps.c).toBeUndefined();
    await d.send(id, "step", { pauseId: next.pause.id });
    const third = await d.paused(id, next.pause.id);
    expect(third.pause).toMatchObject({ breakpointId: "step", stepPath: "e", phase: "before" });
    expect(third.view.steps.c).toMatchObject({ status: "COMPLETED", output: 51 });

    await d.send(id, "continue", { pauseId: third.pause.id });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.e).toMatchObject({ status: "COMPLETED", output: 52 });
  });
});

describe("foreach_item", () => {
  it("step_into at a foreach pauses at its first child step; foreach_item pauses before the matching item with its index and item", async () => {
    const d = await debugging(`
name: foreach-item
variables:
  items: { type: array, default: [{ id: 10 }, { id: 20 }, { id: 30 }] }
steps:
  - name: each
    type: foreach
    items: "{{ vars.items }}"
    steps:
      - { name: double, type: transform, output: "{{ item.id * 2 }}" }
      - { name: label, type: transform, output: "{{ 'n' & $string(steps.double.output) }}" }
  - { name: sum, type: transform, output: "{{ $count(steps.each.output) }}" }
`);
    const id = await d.start([
      { type: "before_step", step: "each" },
      { type: "foreach_item", step: "each", expression: "item.id = 30" },
    ]);
    const before = await d.paused(id);
    expect(before.pause).toMatchObject({ type: "before_step", stepPath: "each", phase: "before" });
    expect(before.pause.context.input).toEqual([{ id: 10 }, { id: 20 }, { id: 30 }]);

    await d.send(id, "step_into", { pauseId: before.pause.id });
    const inside = await d.paused(id, before.pause.id);
    expect(inside.pause).toMatchObject({
      breakpointId: "step",
      stepPath: "each[0].double",
      phase: "before",
      context: { item: { id: 10 } },
    });
    expect(inside.view.steps["each[0].double"]).toBeUndefined();

    await d.send(id, "continue", { pauseId: inside.pause.id });
    const item = await d.paused(id, inside.pause.id);
    expect(item.pause).toMatchObject({
      breakpointId: "bp2",
      type: "foreach_item",
      stepPath: "each",
      phase: "item",
      occurrence: 2,
      context: { index: 2, item: { id: 30 } },
    });
    expect(item.view.steps).toMatchObject({ "each[0].label": { output: "n20" }, "each[1].label": { output: "n40" } });
    expect(item.view.steps["each[2].double"]).toBeUndefined();

    await d.send(id, "continue", { pauseId: item.pause.id });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.each!.output).toEqual(["n20", "n40", "n60"]);
    expect(done.steps.sum).toMatchObject({ status: "COMPLETED", output: 3 });
  });
});

describe("on_retry", () => {
  it("pauses after the backoff, before the next attempt, with the attempt and the last failure; continue runs that attempt", async () => {
    const fx = await sideEffects();
    const key = newId();
    const d = await debugging(`
name: on-retry
steps:
  - name: flaky
    type: code
    language: bash
    network: { allow: ["${fx.allow}"] }
    retry: { max_attempts: 3, backoff: fixed, initial_delay: 0.01 }
    code: |
      n=$(curl -s -X POST --data try ${fx.url}/${key})
      if [ "$n" -ge 2 ]; then echo "\\"passed on try $n\\""; else echo "try $n failed" >&2; exit 1; fi
`);
    const id = await d.start([{ type: "on_retry", step: "flaky" }]);
    const { pause, view } = await d.paused(id);
    expect(pause).toMatchObject({
      type: "on_retry",
      stepPath: "flaky",
      phase: "retry",
      occurrence: 2,
      context: { attempt: 2 },
    });
    expect(pause.context.error).toEqual(expect.stringContaining("try 1 failed"));
    expect(view.steps.flaky).toMatchObject({ attempts: 1 });
    // Paused before the second attempt: it has not run.
    expect(fx.lines(key)).toHaveLength(1);

    await d.send(id, "continue", { pauseId: pause.id });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.flaky).toMatchObject({ status: "COMPLETED", attempts: 2, output: "passed on try 2" });
    expect(fx.lines(key)).toHaveLength(2);
  });
});

describe("tool_call", () => {
  it("pauses before the agent's MCP call with server, tool and arguments; set arguments changes what the tool receives", async () => {
    const crm = await McpHttpTestServer.start();
    try {
      const m = model();
      openai.script(
        m,
        { toolCalls: [{ name: "crm__lookup_ticket", arguments: { id: 7 } }], usage: { prompt: 20, completion: 5 } },
        { text: "ticket 8 is low priority", usage: { prompt: 30, completion: 6 } },
      );
      const d = await debugging(`
name: tool-call-set
agents:
  - { name: support, model: ${m}, instructions: You triage tickets., mcp: [ { name: crm, url: "${crm.url}" } ] }
steps:
  - { name: triage, type: agent, agent: support, prompt: "Triage ticket {{ 3 + 4 }}" }
`);
      const id = await d.start([{ type: "tool_call", server: "crm", tool: "lookup_ticket" }]);
      const { pause } = await d.paused(id);
      expect(pause).toMatchObject({
        type: "tool_call",
        stepPath: "triage",
        phase: "tool_call",
        occurrence: 1,
        context: { toolCall: { server: "crm", tool: "lookup_ticket", arguments: { id: 7 } } },
      });
      expect(crm.calls).toEqual([]);
      expect(openai.requests(m)).toHaveLength(1);

      await d.send(id, "set", { pauseId: pause.id, arguments: { id: 8 } });
      const edited = await d.edited(id, 1);
      expect(edited.edits).toEqual([
        expect.objectContaining({
          pauseId: pause.id,
          stepPath: "triage",
          field: "arguments",
          by: d.me.user.id,
          before: { id: 7 },
          after: { id: 8 },
        }),
      ]);
      await d.send(id, "continue", { pauseId: pause.id });
      const done = await d.ended(id);
      expect(done.status, done.error ?? "").toBe("COMPLETED");
      expect(done.steps.triage).toMatchObject({ status: "COMPLETED", output: "ticket 8 is low priority", attempts: 1 });
      expect(crm.calls.map((c) => [c.tool, c.args])).toEqual([["lookup_ticket", { id: 8 }]]);
      // The model was not asked again for the call it had made; it was given the edited call's result.
      const requests = openai.requests(m);
      expect(requests).toHaveLength(2);
      const toolMessages = (requests[1]!.body.messages as { role: string; content?: string }[]).filter(
        (x) => x.role === "tool",
      );
      expect(toolMessages).toEqual([{ role: "tool", tool_call_id: "call_0", content: '{"id":8,"priority":"low"}' }]);
    } finally {
      await crm.close();
    }
  });
});

describe("usage", () => {
  it("pauses before the LLM call once the execution's totals reach the threshold, with the usage so far and the call's messages", async () => {
    const m = model();
    openai.script(
      m,
      { text: "first", usage: { prompt: 11, completion: 7 } },
      { text: "second", usage: { prompt: 13, completion: 3 } },
    );
    const d = await debugging(`
name: usage-threshold
steps:
  - { name: one, type: llm, model: ${m}, prompt: "first question" }
  - { name: two, type: llm, model: ${m}, system: "answer in one word", prompt: "then {{ steps.one.output }}" }
`);
    const id = await d.start([{ type: "usage", tokens: 18 }]);
    const { pause, view } = await d.paused(id);
    expect(pause).toMatchObject({
      type: "usage",
      stepPath: "two",
      phase: "llm_call",
      occurrence: 1,
      context: {
        usage: {
          promptTokens: 11,
          completionTokens: 7,
          totalTokens: 18,
          costUsd: expect.closeTo(priced("oa", { prompt: 11, completion: 7 }), 12),
        },
        input: { model: m, system: "answer in one word", messages: [{ role: "user", text: "then first" }] },
      },
    });
    expect(view.steps.one).toMatchObject({ status: "COMPLETED", output: "first" });
    expect(openai.requests(m)).toHaveLength(1);

    await d.send(id, "continue", { pauseId: pause.id });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.two).toMatchObject({ status: "COMPLETED", output: "second" });
    expect(openai.requests(m)).toHaveLength(2);
    expect(done.usage).toMatchObject({ totalTokens: 34 });
  });
});

describe("who may answer a pause, and which pause", () => {
  it("another user's session gets 404 on the execution and on a command; a command naming an earlier pause gets 409 stale", async () => {
    const [d, stranger] = await Promise.all([
      debugging(`
name: access-and-stale
steps:
  - { name: a, type: transform, output: 1 }
  - { name: b, type: transform, output: "{{ steps.a.output + 1 }}" }
`),
      consoleSession(env(), "free"),
    ]);
    const id = await d.start([
      { type: "before_step", step: "a" },
      { type: "before_step", step: "b" },
    ]);
    const first = await d.paused(id);
    expect(first.pause.stepPath).toBe("a");

    expect(statusAndCode(await consoleCall(env(), stranger, "GET", `/api/console/executions/${id}`))).toEqual([
      404,
      "NOT_FOUND",
    ]);
    expect(statusAndCode(await d.command(id, "continue", { pauseId: first.pause.id }, stranger))).toEqual([
      404,
      "NOT_FOUND",
    ]);
    expect(statusAndCode(await d.command(id, "abort", {}, stranger))).toEqual([404, "NOT_FOUND"]);
    // The stranger's commands changed nothing: the same pause waits.
    expect((await d.view(id)).pause?.id).toBe(first.pause.id);

    await d.send(id, "continue", { pauseId: first.pause.id });
    const second = await d.paused(id, first.pause.id);
    expect(second.pause).toMatchObject({ stepPath: "b", type: "before_step", context: { input: 2 } });
    const stale = await d.command(id, "continue", { pauseId: first.pause.id });
    expect(statusAndCode(stale)).toEqual([409, "CONFLICT"]);
    expect(stale.body.reason).toBe("stale");
    expect((await d.view(id)).pause?.id).toBe(second.pause.id);

    await d.send(id, "continue", { pauseId: second.pause.id });
    const done = await d.ended(id);
    expect(done.status, done.error ?? "").toBe("COMPLETED");
    expect(done.steps.b).toMatchObject({ status: "COMPLETED", output: 2 });
  });
});
