import { describe, expect, it } from "vitest";
import { sendDebugCommand } from "@wf/shared/client";
import { DebugRequest, type ExecutionSnapshot, type PauseRecord } from "@wf/shared/execution";
import { run, waitFor, waitForStatus } from "../support/runtime";
import { model, useAiEnv } from "./support/ai-env";

/** Waits over a quarter of a second park, so that one ending replays the run while it is paused. */
const env = useAiEnv({ WF_HOLD_WAIT_MS: "250" });

async function pausedAt(id: string): Promise<ExecutionSnapshot & { debug: { pause: PauseRecord } }> {
  const p = env().rt.platform;
  const snap = await waitFor(
    async () => {
      const s = (await p.store.executions.get(id))?.value;
      return s?.debug?.pause && s.holder === null ? s : undefined;
    },
    { timeoutMs: 20_000, what: `execution ${id} to pause` },
  );
  return snap as ExecutionSnapshot & { debug: { pause: PauseRecord } };
}

describe("a pause inside an llm step's attempt whose conversation is too large to keep", () => {
  it("costs no model call when another branch's wait ends while paused, and runs the attempt again once resumed", async () => {
    const { rt, openai } = env();
    const p = rt.platform;
    const m = model();
    // The first answer misses the schema and is asked again: the second call is where the usage breakpoint pauses.
    // Resumed, the attempt starts again, and its first call is answered right.
    openai.script(m, { text: "not json", usage: { prompt: 11, completion: 7 } });
    openai.script(m, { text: '{"ok": true}', usage: { prompt: 11, completion: 7 } });
    const id = await run(
      p,
      `
name: paused-call
variables:
  big: { type: string }
steps:
  - name: par
    type: parallel
    branches:
      b1: [{ name: ask, type: llm, model: ${m}, prompt: "{{ vars.big }}", output_schema: { type: object } }]
      b2: [{ name: nap, type: wait, seconds: 1 }]
`,
      {
        // Over a sixteenth of the record: the paused attempt's conversation is not kept.
        inputs: { big: "word ".repeat(15_000) },
        debug: DebugRequest.parse({ breakpoints: [{ type: "usage", tokens: 18, hitCount: 1 }] }),
      },
    );
    const paused = await pausedAt(id);
    expect([paused.debug.pause.stepPath, paused.debug.pause.phase, paused.debug.checkpoint]).toEqual([
      "ask",
      "llm_call",
      null,
    ]);
    const calls = openai.requests(m).length;
    // The wait ends while paused, and its run is replayed up to the pause again.
    const napped = await waitFor(async () => {
      const s = (await p.store.executions.get(id))!.value;
      return s.steps["nap"]?.status === "COMPLETED" && s.holder === null ? s : undefined;
    });
    expect(napped.debug?.pause?.id).toBe(paused.debug.pause.id);
    expect(openai.requests(m).length).toBe(calls);

    await sendDebugCommand(p.js, p.store, rt.ns, id, paused.debug.pause.id, {
      command: "continue",
      body: {},
      by: "ada",
    });
    const end = await waitForStatus(p, id);
    expect([end.status, end.error]).toEqual(["COMPLETED", null]);
    expect(end.steps["ask"]?.output).toEqual({ ok: true });
  });
});
