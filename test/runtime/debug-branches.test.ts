import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendDebugCommand, tailEvents } from "@wf/shared/client";
import {
  DebugRequest,
  newId,
  TERMINAL_STATUSES,
  type ExecutionEvent,
  type ExecutionSnapshot,
  type PauseRecord,
} from "@wf/shared/execution";
import { newWorkflowRecord } from "@wf/shared/store";
import type { NatsServerHandle } from "@wf/testing";
import {
  definitionOf,
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";

let server: NatsServerHandle;
let rt: InProcessRuntime;
beforeAll(async () => {
  server = await startNatsServer();
  rt = await startRuntime(testConfig(server));
});
afterAll(async () => {
  await rt?.stop();
  await server?.stop();
});

/** The execution once it waits, parked, at a pause other than `after`. */
async function pausedAt(id: string, after?: string): Promise<{ snap: ExecutionSnapshot; pause: PauseRecord }> {
  return waitFor(async () => {
    const s = (await rt.platform.store.executions.get(id))?.value;
    const pause = s?.debug?.pause;
    return pause && pause.id !== after && s.holder === null ? { snap: s, pause } : undefined;
  });
}

describe("a debugger's pause past a parked step's timeout", () => {
  it("leaves the run parked, its deadline's timer fired once, and the step's clock moved on by the pause", async () => {
    const p = rt.platform;
    const id = await run(
      p,
      `
name: timed-loop
steps:
  - name: loop
    type: foreach
    timeout: 1
    items: [1]
    steps:
      - { name: t, type: transform, output: "{{ item }}" }
`,
      { debug: DebugRequest.parse({ breakpoints: [{ type: "before_step", step: "loop[*].t" }], idleTimeout: 3_600 }) },
    );
    const events: ExecutionEvent[] = [];
    const tail = (async () => {
      for await (const e of tailEvents(p.js, rt.ns, { executionId: id, since: 0 })) {
        events.push(e);
        if (["exec_completed", "exec_failed", "exec_cancelled"].includes(e.type)) return;
      }
    })();
    const { snap: paused, pause } = await pausedAt(id);
    const deadline = paused.steps.loop!.deadline!;
    // The deadline's timer fires while paused and wakes the run, which parks again.
    const parksAfter = () => events.filter((e) => e.type === "exec_parked" && e.at >= deadline).length;
    await waitFor(() => parksAfter() >= 1 || undefined, { what: "the deadline's wake to park the run again" });
    // Armed again at the deadline already past, it fired at once, each wake arming it anew: several parks a second.
    const window = Date.now() + 2_000;
    await waitFor(() => (parksAfter() > 1 || Date.now() >= window ? true : undefined), { timeoutMs: 5_000 });
    expect(parksAfter()).toBe(1);

    await sendDebugCommand(p.js, p.store, rt.ns, id, pause.id, { command: "continue", body: {}, by: "ada" });
    const end = await waitForStatus(p, id);
    await tail;
    expect([end.status, end.error]).toEqual(["COMPLETED", null]);
  });
});

describe("step_into at a workflow step while another branch pauses first", () => {
  it("still runs the child as a debug run, paused before its first step", async () => {
    const p = rt.platform;
    const childYaml = `
name: stepped-child
steps:
  - { name: c1, type: transform, output: 20 }
`;
    const child = newWorkflowRecord({
      id: `wf-${newId()}`,
      ownerId: "owner1",
      yaml: childYaml,
      definition: definitionOf(childYaml),
    });
    await p.store.workflows.create(child);
    const id = await run(
      p,
      `
name: par-step-into
steps:
  - name: par
    type: parallel
    branches:
      b1: [{ name: call, type: workflow, workflow: ${child.id} }]
      b2: [{ name: q, type: transform, output: 1 }]
`,
      {
        debug: DebugRequest.parse({
          breakpoints: [
            { type: "before_step", step: "call" },
            { type: "before_step", step: "q" },
          ],
          idleTimeout: 3_600,
        }),
      },
    );
    const first = await pausedAt(id);
    expect(first.pause.stepPath).toBe("call");
    await sendDebugCommand(p.js, p.store, rt.ns, id, first.pause.id, { command: "step_into", body: {}, by: "ada" });
    // The other branch's breakpoint pauses the run next, before `call` starts its child.
    const second = await pausedAt(id, first.pause.id);
    expect(second.pause.stepPath).toBe("q");
    const childId = await waitFor(
      async () => (await p.store.executions.get(id))?.value.steps.call?.childExecutionId ?? undefined,
    );
    const stepped = await waitFor(async () => {
      const c = (await p.store.executions.get(childId))?.value;
      return c && (c.debug?.pause || TERMINAL_STATUSES.has(c.status)) ? c : undefined;
    });
    expect([stepped.status, stepped.debug?.pause?.stepPath]).toEqual(["RUNNING", "c1"]);
    await sendDebugCommand(p.js, p.store, rt.ns, id, second.pause.id, { command: "abort", body: {}, by: "ada" });
  });
});
