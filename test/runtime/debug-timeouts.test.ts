import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendDebugCommand, tailEvents } from "@wf/shared/client";
import { DebugRequest, type ExecutionEvent, type PauseRecord } from "@wf/shared/execution";
import type { NatsServerHandle } from "@wf/testing";
import {
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
    const paused = await waitFor(async () => {
      const s = (await p.store.executions.get(id))?.value;
      return s?.debug?.pause && s.holder === null ? s : undefined;
    });
    const pause = paused.debug!.pause as PauseRecord;
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
