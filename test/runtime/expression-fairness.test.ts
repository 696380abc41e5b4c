import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executorMetrics } from "@wf/executor";
import { cancelExecution } from "@wf/shared/client";
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

/** One owner's foreach of 50 heavy transforms at once, each a few hundred ms of the expression pool. */
const HEAVY = `
name: heavy-fanout
steps:
  - name: each
    type: foreach
    items: "{{ [1..50] }}"
    concurrency: 50
    steps:
      - name: calc
        type: transform
        output: "{{ $sum([1..2000000]) + item }}"
      # Waiting no time writes the run's record: the test sees each transform's end as it comes.
      - name: mark
        type: wait
        seconds: 0
`;

/** Another owner's one line: a function call, not a path or plain arithmetic, so it too is evaluated by the pool. */
const LIGHT = `
name: light
variables:
  x: { type: number, required: true }
steps:
  - name: add
    type: transform
    output: "{{ $sum([vars.x, 1]) }}"
`;

/** One owner's fan-out of JavaScript steps that spin until cancelled: its isolates' CPU, held. */
const SPINNING = `
name: spinning-fanout
steps:
  - name: each
    type: foreach
    items: "{{ [1..24] }}"
    concurrency: 24
    steps:
      - name: spin
        type: code
        language: javascript
        timeout: 120
        code: "for (;;) {}"
`;

/** Another owner's workflow of one JavaScript step and one expression. */
const LIGHT_JS = `
name: light-js
variables:
  x: { type: number, required: true }
steps:
  - name: double
    type: code
    language: javascript
    code: "return vars.x * 2"
  - name: add
    type: transform
    output: "{{ $sum([steps.double.output, 1]) }}"
`;

describe("expressions of two owners through the executor", () => {
  let server: NatsServerHandle;
  let rt: InProcessRuntime;

  beforeAll(async () => {
    server = await startNatsServer();
    rt = await startRuntime(testConfig(server));
  });
  /** How many of the heavy fan-out's transforms its record shows completed. */
  const transformsDone = async (heavyId: string) => {
    const snap = (await rt.platform.store.executions.get(heavyId))?.value;
    return Object.entries(snap?.steps ?? {}).filter(
      ([path, st]) => /^each\[\d+\]\.calc$/.test(path) && st.status === "COMPLETED",
    ).length;
  };
  afterAll(async () => {
    await rt?.stop();
    await server?.stop();
  });

  // Fairness is judged by order, not by the clock: a FIFO pool runs another owner's expression after
  // every transform queued before it (≈ 48 of the 50), a fair one after a pool's turn or two. The
  // latency is printed; the bench's flood part measures it on an idle machine.
  it("one owner's fan-out of heavy transforms holds another owner's light transform for a turn of the pool, not the fan-out", async () => {
    const heavyId = await run(rt.platform, HEAVY, { ownerId: "owner-heavy" });
    await waitFor(async () => (await transformsDone(heavyId)) >= 2, {
      timeoutMs: 60_000,
      what: "the fan-out's first transforms",
    });
    const before = await transformsDone(heavyId);
    const lightId = await run(rt.platform, LIGHT, { ownerId: "owner-light", inputs: { x: 41 } });
    const light = await waitForStatus(rt.platform, lightId, undefined, 120_000);
    const after = await transformsDone(heavyId);
    expect(light.status, light.error ?? "").toBe("COMPLETED");
    expect(light.output).toBe(42);
    console.log(
      `light transform: ${light.steps.add!.completedAt! - light.steps.add!.startedAt!} ms; ${after - before} of the fan-out's transforms ended meanwhile`,
    );
    expect(after - before, "the fan-out's transforms that went first").toBeLessThan(25);
    expect(after, "the fan-out was still under way").toBeLessThan(50);

    // However it ends (a loaded machine may push a transform past the deadline), before the runtime stops.
    await waitForStatus(rt.platform, heavyId, undefined, 120_000);
  });

  it("one owner flooding the expression pool and the JavaScript runners at once holds another owner's workflow for a turn, not the flood", async () => {
    const spinId = await run(rt.platform, SPINNING, { ownerId: "owner-flood" });
    // A JavaScript step's start is written with its result: the runs in flight tell it spins.
    const inFlight = executorMetrics.find((m) => (m as { name?: string }).name === "wf_sandbox_runs_in_flight")!;
    const spinning = async () => (await inFlight.get()).values[0]!.value;
    await waitFor(async () => (await spinning()) >= 24, { timeoutMs: 60_000, what: "the JavaScript fan-out spinning" });
    const heavyId = await run(rt.platform, HEAVY, { ownerId: "owner-flood" });
    try {
      await waitFor(async () => (await transformsDone(heavyId)) >= 2, {
        timeoutMs: 60_000,
        what: "the fan-out's first transforms",
      });
      const lightId = await run(rt.platform, LIGHT_JS, { ownerId: "owner-quiet", inputs: { x: 20 } });
      const light = await waitForStatus(rt.platform, lightId, undefined, 120_000);
      expect(light.status, light.error ?? "").toBe("COMPLETED");
      expect(light.output).toBe(41);
      // Counted over its expression's own wait, not its JavaScript step's (which a loaded machine stretches while the
      // flood's transforms go on, whatever the pool's order).
      const { startedAt, completedAt } = light.steps.add!;
      const heavy = (await rt.platform.store.executions.get(heavyId))!.value;
      const first = Object.entries(heavy.steps).filter(
        ([path, st]) =>
          /^each\[\d+\]\.calc$/.test(path) && st.completedAt! > startedAt! && st.completedAt! <= completedAt!,
      ).length;
      console.log(
        `light workflow: ${light.completedAt! - light.startedAt!} ms, its transform ${completedAt! - startedAt!} ms; ${first} of the flood's transforms ended meanwhile`,
      );
      expect(first, "the flood's transforms that went first").toBeLessThan(25);
      // Its JavaScript step ran beside 24 steps that spin until cancelled: a pool served in order never gets to it.
      // (PENDING: its run, pure so far, may not have been written yet.)
      expect(["PENDING", "RUNNING"], "the flood was still under way").toContain(
        (await rt.platform.store.executions.get(spinId))?.value.status,
      );
    } finally {
      await cancelExecution(rt.platform.js, rt.ns, spinId);
      await cancelExecution(rt.platform.js, rt.ns, heavyId);
      await waitForStatus(rt.platform, spinId, undefined, 60_000);
      await waitForStatus(rt.platform, heavyId, undefined, 120_000);
    }
  });
});
