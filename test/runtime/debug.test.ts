import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { debugCommandOf, sendBreakpoints, sendDebugCommand, tailEvents } from "@wf/shared/client";
import {
  changeBreakpoints,
  claimPause,
  DebugRequest,
  TERMINAL_STATUSES,
  type BreakpointInput,
  type ExecutionEvent,
  type ExecutionSnapshot,
  type PauseRecord,
} from "@wf/shared/execution";
import { consumerNames, streamNames, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import type { NatsServerHandle } from "@wf/testing";
import { newId } from "@wf/shared/execution";
import { newWorkflowRecord } from "@wf/shared/store";
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

const TWO_STEPS = `
  name: debugged
  steps:
    - { name: a, type: transform, output: 1 }
    - { name: b, type: transform, output: "{{ steps.a.output + vars.add }}" }
  variables:
    add: { type: number, default: 1 }
`;

/** The scenario of issue 42: two items at a time, each doubled. */
const DOUBLING = `
  name: doubling
  steps:
    - name: each
      type: foreach
      items: [1, 2, 3, 4, 5]
      concurrency: 2
      steps:
        - { name: double, type: transform, output: "{{ item * 2 }}" }
`;

/** A pause's breakpoint and point, as one comparable string. */
function pointOf(pause: PauseRecord): string {
  return `${pause.breakpointId} ${pause.phase} ${pause.stepPath} ${pause.occurrence}`;
}

function debug(breakpoints: BreakpointInput[], idleTimeout = 3_600): DebugRequest {
  return DebugRequest.parse({ breakpoints, idleTimeout });
}

/** The execution once it waits, parked (nobody holds it), at a pause other than `after`. */
async function pausedAt(
  p: Platform,
  id: string,
  after?: string,
): Promise<ExecutionSnapshot & { debug: { pause: PauseRecord } }> {
  const snap = await waitFor(
    async () => {
      const s = (await p.store.executions.get(id))?.value;
      return s?.debug?.pause && s.debug.pause.id !== after && s.holder === null ? s : undefined;
    },
    { timeoutMs: 20_000, what: `execution ${id} to pause` },
  );
  return snap as ExecutionSnapshot & { debug: { pause: PauseRecord } };
}

/** A saved workflow of owner1's that a `workflow` step can call. */
async function storedWorkflow(p: Platform, yaml: string): Promise<{ id: string }> {
  const w = newWorkflowRecord({ id: `wf-${newId()}`, ownerId: "owner1", yaml, definition: definitionOf(yaml) });
  await p.store.workflows.create(w);
  return w;
}

/**
 * A debug run paused before `q1` while the run is still held: its other branch, a `wait` of `seconds` (under
 * WF_HOLD_WAIT_MS), waits in memory.
 */
async function pausedBesideWait(p: Platform, seconds: number): Promise<{ id: string; paused: ExecutionSnapshot }> {
  const id = await run(
    p,
    `
  name: beside-wait
  steps:
    - name: par
      type: parallel
      branches:
        b1: [{ name: nap, type: wait, seconds: ${seconds} }]
        b2: [{ name: q1, type: transform, output: 1 }]
`,
    { debug: debug([{ type: "before_step", step: "q1" }]) },
  );
  const paused = await waitFor(
    async () => {
      const s = (await p.store.executions.get(id))?.value;
      return s?.debug?.pause && s.holder !== null && s.steps.nap?.status === "RUNNING" ? s : undefined;
    },
    { what: "the pause at q1 beside the running wait" },
  );
  return { id, paused };
}

/** Replaces a debug run's breakpoints, made on the list as the run's record has it now; the change must be accepted. */
async function replaced(rt: InProcessRuntime, id: string, breakpoints: BreakpointInput[], by = "ada"): Promise<number> {
  const p = rt.platform;
  const revision = (await p.store.executions.getForWrite(id))!.value.debug!.breakpointsRevision;
  const changed = await sendBreakpoints(p.js, p.store, rt.ns, id, { breakpoints, revision, by });
  if (!changed.ok) throw new Error(`breakpoints refused: ${changed.message}`);
  return changed.revision;
}

/** Once the executor has handled (and acknowledged) every command up to the one at stream sequence `seq`. */
async function handledUpTo(p: Platform, ns: string, seq: number): Promise<void> {
  await waitFor(
    async () => {
      const info = await p.jsm.consumers.info(streamNames(ns).cmd, consumerNames().executor);
      return info.ack_floor.stream_seq >= seq || undefined;
    },
    { what: `the commands up to ${seq} to be handled` },
  );
}

/** An execution's events from its start, as they come, until one of the types `until` (the tail then ends). */
function eventsOf(
  js: Platform["js"],
  ns: string,
  id: string,
  until: readonly string[],
): { events: ExecutionEvent[]; ended: Promise<void> } {
  const events: ExecutionEvent[] = [];
  const ended = (async () => {
    for await (const e of tailEvents(js, ns, { executionId: id, since: 0 })) {
      events.push(e);
      if (until.includes(e.type)) return;
    }
  })();
  return { events, ended };
}

/** Commands are handled twice under WF_REDELIVER_ONCE: every outcome must be that of a plain run. */
for (const env of [{}, { WF_REDELIVER_ONCE: "1" }] as Record<string, string>[]) {
  describe(`debug runs on nats-server${"WF_REDELIVER_ONCE" in env ? " (every command handled twice)" : ""}`, () => {
    let server: NatsServerHandle;
    let rt: InProcessRuntime;

    beforeAll(async () => {
      server = await startNatsServer();
      rt = await startRuntime(testConfig(server, env));
    });
    afterAll(async () => {
      await rt?.stop();
      await server?.stop();
    });

    it("pauses before a step (debug_paused); a claimed and published set, then continue, resume it to its end (debug_resumed)", async () => {
      const p = rt.platform;
      const id = await run(p, TWO_STEPS, { debug: debug([{ type: "before_step", step: "b" }]) });
      const { events, ended: tail } = eventsOf(p.js, rt.ns, id, ["exec_completed"]);
      const paused = await pausedAt(p, id);
      expect(paused).toMatchObject({
        status: "RUNNING",
        currentStep: "b",
        debug: { pause: { stepPath: "b", phase: "before", context: { input: 2 } } },
      });
      expect(paused.steps.b).toBeUndefined();

      const set = await sendDebugCommand(p.js, p.store, rt.ns, id, paused.debug.pause.id, {
        command: "set",
        body: { vars: { add: 41 } },
        by: "ada",
      });
      expect(set.ok).toBe(true);
      const cont = await sendDebugCommand(p.js, p.store, rt.ns, id, paused.debug.pause.id, {
        command: "continue",
        body: {},
        by: "ada",
      });
      expect(cont).toMatchObject({ ok: true });
      const done = await waitForStatus(p, id);
      expect(done).toMatchObject({ status: "COMPLETED", output: 42, debug: { pause: null, hits: { bp1: 1 } } });
      expect(done.debug!.edits).toMatchObject([{ field: "vars", by: "ada", before: { add: 1 }, after: { add: 41 } }]);
      await tail;
      const types = events.map((e) => e.type);
      expect(types.filter((t) => t.startsWith("debug_"))).toEqual(["debug_paused", "debug_edited", "debug_resumed"]);
      expect(events.find((e) => e.type === "debug_resumed")?.data).toMatchObject({
        command: "continue",
        by: "ada",
        pauseId: paused.debug.pause.id,
      });
    });

    it("of two commands claimed at once exactly one wins; a command for a pause that is over is refused", async () => {
      const p = rt.platform;
      const id = await run(p, TWO_STEPS, { debug: debug([{ type: "after_step", step: "a" }]) });
      const { debug: d } = await pausedAt(p, id);
      const claims = await Promise.all(
        ["ada", "bob"].map((by) =>
          claimPause(p.store, id, d.pause.id, { command: by === "ada" ? "continue" : "step", body: {}, by }),
        ),
      );
      const won = claims.filter((c) => c.ok);
      expect(won).toHaveLength(1);
      expect(claims.find((c) => !c.ok)).toMatchObject({ reason: "conflict" });
      const winner = won[0]!;
      if (!winner.ok) throw new Error("unreachable");
      await p.js.publish(subjects(rt.ns).execDebug(id), JSON.stringify(debugCommandOf(id, winner.claim)));
      expect(await waitForStatus(p, id)).toMatchObject({ status: "COMPLETED", output: 2 });
      expect(await claimPause(p.store, id, d.pause.id, { command: "continue", body: {}, by: "ada" })).toMatchObject({
        ok: false,
        reason: "no_pause",
      });
    });

    it("abort while another branch still runs (a wait held in memory) cancels the run there, that step too", async () => {
      const p = rt.platform;
      const { id, paused } = await pausedBesideWait(p, 4);
      await sendDebugCommand(p.js, p.store, rt.ns, id, paused.debug!.pause!.id, {
        command: "abort",
        body: {},
        by: "ada",
      });
      const ended = await waitForStatus(p, id);
      expect([ended.status, ended.error]).toEqual(["CANCELLED", "execution aborted in the debugger by ada"]);
      // Carried out at once, as a cancel is: the wait did not run to its end first.
      expect(ended.steps.nap?.status).toBe("CANCELLED");
      expect(ended.steps.q1).toBeUndefined();
    });

    it("a command claimed while another branch holds the run still stands when the run parks a minute later", async () => {
      const p = rt.platform;
      const { id, paused } = await pausedBesideWait(p, 2);
      // Claimed while held (its message, turned back meanwhile, is left out here: the claim alone stands).
      const first = await claimPause(p.store, id, paused.debug!.pause!.id, {
        command: "continue",
        body: {},
        by: "tab1",
      });
      if (!first.ok) throw new Error(`the first claim failed: ${first.reason}`);
      const parked = await pausedAt(p, id);
      expect(parked.debug.claimed?.id).toBe(first.claim.id);
      // The park came 61 s after the claim (another branch held the run that long), as the clock of a second tab says.
      const second = await claimPause(
        p.store,
        id,
        parked.debug.pause.id,
        { command: "step", body: {}, by: "tab2" },
        { now: () => first.claim.at + 61_000, waitMs: 0 },
      );
      expect(second).toMatchObject({ ok: false });
      await sendDebugCommand(p.js, p.store, rt.ns, id, parked.debug.pause.id, {
        command: "abort",
        body: {},
        by: "ada",
      });
    });

    it("breakpoints replaced while paused with another branch running are announced once, in the run's numbering", async () => {
      const p = rt.platform;
      const { id } = await pausedBesideWait(p, 2);
      const { events, ended: tail } = eventsOf(p.js, rt.ns, id, ["exec_cancelled"]);
      await replaced(rt, id, [{ type: "after_step", step: "q1" }]);
      // The wait ends, and the run parks at the pause: its holder has taken the replacement up by then.
      const parked = await pausedAt(p, id);
      expect(parked.debug.breakpoints).toMatchObject([{ type: "after_step", step: "q1" }]);
      await sendDebugCommand(p.js, p.store, rt.ns, id, parked.debug.pause.id, {
        command: "abort",
        body: {},
        by: "ada",
      });
      await tail;
      const announced = events.filter((e) => e.type === "debug_breakpoints");
      expect(announced.map((e) => e.data)).toEqual([
        { by: "ada", breakpoints: [expect.objectContaining({ type: "after_step", step: "q1" })] },
      ]);
      // One numbering: every event id once, in order, none skipped.
      expect(events.map((e) => Number(e.id.split(".").pop()))).toEqual(events.map((_, i) => i + 1));
    });

    it("breakpoints replaced while paused take effect from there", async () => {
      const p = rt.platform;
      const id = await run(p, TWO_STEPS, { debug: debug([{ type: "before_step", step: "a" }]) });
      const first = await pausedAt(p, id);
      await replaced(rt, id, [{ type: "after_step", step: "b" }]);
      await sendDebugCommand(p.js, p.store, rt.ns, id, first.debug.pause.id, {
        command: "continue",
        body: {},
        by: "ada",
      });
      const second = await pausedAt(p, id, first.debug.pause.id);
      expect(second.debug.pause).toMatchObject({
        // A new breakpoint, not the one it replaced (bp1, which counted a hit): an id of its own, its hits from 0.
        breakpointId: "bp2",
        type: "after_step",
        stepPath: "b",
        context: { output: 2 },
      });
      await sendDebugCommand(p.js, p.store, rt.ns, id, second.debug.pause.id, {
        command: "abort",
        body: {},
        by: "ada",
      });
      expect(await waitForStatus(p, id)).toMatchObject({
        status: "CANCELLED",
        error: "execution aborted in the debugger by ada",
        debug: { pause: null },
      });
    });

    it("a breakpoints change delivered again after a later one, or made on a replaced list, changes nothing", async () => {
      const p = rt.platform;
      const id = await run(p, TWO_STEPS, { debug: debug([{ type: "before_step", step: "a" }]) });
      const first = await pausedAt(p, id);
      const { events, ended: tail } = eventsOf(p.js, rt.ns, id, ["exec_cancelled"]);
      const A: BreakpointInput[] = [{ id: "A", type: "after_step", step: "a" }];
      const B: BreakpointInput[] = [{ id: "B", type: "before_step", step: "b" }];
      expect(await replaced(rt, id, A, "ada")).toBe(1);
      expect(await replaced(rt, id, B, "bob")).toBe(2);
      // A's message again, as a redelivery carries it (its executor killed after handling it, before acking).
      const again = { executionId: id, command: "breakpoints", revision: 1, by: "ada", at: Date.now() };
      const seq = (await p.js.publish(subjects(rt.ns).execDebug(id), JSON.stringify(again))).seq;
      // A change made on A's list (a tab that has not seen B yet) is refused, whoever hears of it.
      const late = await sendBreakpoints(p.js, p.store, rt.ns, id, { breakpoints: A, revision: 1, by: "cy" });
      expect(late).toMatchObject({ ok: false, reason: "stale", revision: 2 });
      // Two changes made on one list at once (two tabs): one is accepted, the other refused, not lost in silence.
      const racing = await Promise.all(
        ["dan", "eve"].map((by) =>
          sendBreakpoints(p.js, p.store, rt.ns, id, {
            breakpoints: [{ id: by, type: "after_step", step: "b" }],
            revision: 2,
            by,
          }),
        ),
      );
      expect(racing.map((r) => (r.ok ? r.revision : r.reason)).sort()).toEqual([3, "stale"]);
      const winner = racing.find((r) => r.ok)!;
      await handledUpTo(p, rt.ns, seq);
      const { debug: d } = (await p.store.executions.getForWrite(id))!.value;
      expect({ breakpoints: d!.breakpoints, revision: d!.breakpointsRevision }).toEqual({
        breakpoints: winner.ok ? winner.breakpoints : [],
        revision: 3,
      });
      // The winner's message may still be on its way, or be handled beside the abort: the abort's write then announces
      // the change, ahead of the end the tail stops at (the test below forces that).
      await sendDebugCommand(p.js, p.store, rt.ns, id, first.debug.pause.id, { command: "abort", body: {}, by: "ada" });
      await tail;
      // Announced in the order made (changes that came together announced once, as the list then stood): A never again.
      const announced = events
        .filter((e) => e.type === "debug_breakpoints")
        .map((e) => (e.data.breakpoints as { id: string }[])[0]!.id);
      expect(announced.at(-1)).toBe(winner.ok ? winner.breakpoints[0]!.id : "");
      expect(announced.indexOf("A")).toBeLessThanOrEqual(0);
      expect(announced.filter((bp) => bp === "A").length).toBeLessThanOrEqual(1);
    });

    it("breakpoints replaced before an abort, their message not handled yet, are announced ahead of the run's end", async () => {
      const p = rt.platform;
      const id = await run(p, TWO_STEPS, { debug: debug([{ type: "before_step", step: "a" }]) });
      const first = await pausedAt(p, id);
      const { events, ended: tail } = eventsOf(p.js, rt.ns, id, ["exec_cancelled"]);
      // Written as the edge writes it; its message left out, as when its publish fails (a 503), or comes after the
      // abort.
      const breakpoints = [{ id: "late", type: "after_step" as const, step: "b" }];
      expect(await changeBreakpoints(p.store, id, { breakpoints, revision: 0, by: "bob" })).toMatchObject({ ok: true });
      await sendDebugCommand(p.js, p.store, rt.ns, id, first.debug.pause.id, { command: "abort", body: {}, by: "ada" });
      // A follower stops at the end event (the console's stream ends there): the change must come before it.
      await tail;
      const announced = events.filter((e) => e.type === "debug_breakpoints");
      expect(announced.map((e) => e.data)).toMatchObject([{ by: "bob", breakpoints: [{ id: "late" }] }]);
      expect((await waitForStatus(p, id)).eventSeq).toBe(Number(events.at(-1)!.id.split(".").pop()));
    });

    it("a breakpoint that replaces another starts from no hits, under an id of its own or under the old one's", async () => {
      const p = rt.platform;
      const THREE = `
  name: three
  steps:
    - { name: a, type: transform, output: 1 }
    - { name: b, type: transform, output: 2 }
    - { name: c, type: transform, output: 3 }
`;
      for (const id of [undefined, "bp1"]) {
        const exec = await run(p, THREE, { debug: debug([{ type: "before_step", step: "a" }]) });
        const first = await pausedAt(p, exec);
        expect(first.debug.hits).toEqual({ bp1: 1 });
        // Its first hit pauses: bp1's hit, counted before, is not its own.
        await replaced(rt, exec, [{ ...(id ? { id } : {}), type: "after_step", step: "b", hitCount: 1 }]);
        await sendDebugCommand(p.js, p.store, rt.ns, exec, first.debug.pause.id, {
          command: "continue",
          body: {},
          by: "ada",
        });
        const second = await pausedAt(p, exec, first.debug.pause.id);
        expect(second.debug.pause).toMatchObject({ breakpointId: id ?? "bp2", stepPath: "b", phase: "after" });
        await sendDebugCommand(p.js, p.store, rt.ns, exec, second.debug.pause.id, {
          command: "abort",
          body: {},
          by: "ada",
        });
        await waitForStatus(p, exec);
      }
    });

    it("a claimed command is carried out though a replica answers the record without its claim", async () => {
      const p = rt.platform;
      const id = await run(p, TWO_STEPS, { debug: debug([{ type: "before_step", step: "b" }]) });
      const paused = await pausedAt(p, id);
      const lagging = (await p.store.executions.getForWrite(id))!;
      const claimed = await claimPause(p.store, id, paused.debug.pause.id, {
        command: "continue",
        body: {},
        by: "ada",
      });
      if (!claimed.ok) throw new Error(claimed.message);
      const executions = p.store.executions;
      const get = executions.get.bind(executions);
      // A replica behind the claim's write: the record as it was before the claim.
      executions.get = (eid, atLeast) => (eid === id ? Promise.resolve(structuredClone(lagging)) : get(eid, atLeast));
      try {
        await p.js.publish(subjects(rt.ns).execDebug(id), JSON.stringify(debugCommandOf(id, claimed.claim)));
        const done = await waitFor(
          async () => {
            const v = await executions.getForWrite(id);
            return v?.value.status === "COMPLETED" ? v.value : undefined;
          },
          { timeoutMs: 20_000, what: `execution ${id} to complete` },
        );
        expect(done.output).toBe(2);
      } finally {
        executions.get = get;
      }
    });

    it("step_into at a workflow step runs its child as a debug run paused before its first step; the parent then pauses at its next step", async () => {
      const p = rt.platform;
      const childYaml = `
  name: stepped-child
  steps:
    - { name: c1, type: transform, output: 20 }
    - { name: c2, type: transform, output: "{{ steps.c1.output + 1 }}" }
`;
      const child = await storedWorkflow(p, childYaml);
      const id = await run(
        p,
        `
  name: stepping-parent
  steps:
    - { name: call, type: workflow, workflow: ${child.id} }
    - { name: after, type: transform, output: "{{ steps.call.output * 2 }}" }
`,
        { debug: debug([{ type: "before_step", step: "call" }]) },
      );
      const atCall = await pausedAt(p, id);
      expect(atCall.debug.pause).toMatchObject({ stepPath: "call", phase: "before" });
      expect(
        await sendDebugCommand(p.js, p.store, rt.ns, id, atCall.debug.pause.id, {
          command: "step_into",
          body: {},
          by: "ada",
        }),
      ).toMatchObject({
        ok: true,
      });

      const childId = await waitFor(
        async () => (await p.store.executions.get(id))?.value.steps.call?.childExecutionId ?? undefined,
        {
          what: "the child to start",
        },
      );
      const inChild = await pausedAt(p, childId);
      expect(inChild.debug.pause).toMatchObject({ stepPath: "c1", phase: "before", breakpointId: "step_into" });
      expect(inChild.parent).toEqual({ executionId: id, stepPath: "call", depth: 1 });
      await sendDebugCommand(p.js, p.store, rt.ns, childId, inChild.debug.pause.id, {
        command: "continue",
        body: {},
        by: "ada",
      });
      expect(await waitForStatus(p, childId)).toMatchObject({ status: "COMPLETED", output: 21 });

      const atAfter = await pausedAt(p, id, atCall.debug.pause.id);
      expect(atAfter.debug.pause).toMatchObject({ stepPath: "after", breakpointId: "step" });
      await sendDebugCommand(p.js, p.store, rt.ns, id, atAfter.debug.pause.id, {
        command: "continue",
        body: {},
        by: "ada",
      });
      expect(await waitForStatus(p, id)).toMatchObject({ status: "COMPLETED", output: 42 });
    });

    it("a foreach of concurrency 2 pauses once at each point of two breakpoints: Continue until the end is 6 pauses, each accepted", async () => {
      const p = rt.platform;
      const id = await run(p, DOUBLING, {
        debug: debug([
          { type: "foreach_item", step: "each", index: 2 },
          { type: "before_step", step: "each[*].double" },
        ]),
      });
      const announced: string[] = [];
      const tail = (async () => {
        for await (const e of tailEvents(p.js, rt.ns, { executionId: id, since: 0 })) {
          if (e.type === "debug_paused") announced.push(pointOf(e.data as PauseRecord));
          if (e.type === "exec_completed") return;
        }
      })();
      const answered: string[] = [];
      let last: string | undefined;
      for (;;) {
        const s = await waitFor(
          async () => {
            const v = (await p.store.executions.get(id))?.value;
            if (v?.status === "COMPLETED") return v;
            return v?.debug?.pause && v.debug.pause.id !== last && v.holder === null ? v : undefined;
          },
          { timeoutMs: 20_000, what: `execution ${id} to pause again or complete` },
        );
        const pause = s.debug!.pause;
        if (s.status === "COMPLETED" || !pause) break;
        answered.push(pointOf(pause));
        // Bounded: a debugger that pauses again where it paused would go on without end.
        expect(answered.length, answered.join(", ")).toBeLessThanOrEqual(6);
        expect(
          await sendDebugCommand(p.js, p.store, rt.ns, id, pause.id, { command: "continue", body: {}, by: "ada" }),
        ).toMatchObject({ ok: true });
        last = pause.id;
      }
      await tail;
      const expected = ["bp1 item each 2", ...[0, 1, 2, 3, 4].map((i) => `bp2 before each[${i}].double 0`)];
      expect(answered.sort()).toEqual(expected);
      // Every pause announced is one that was answered: none was overwritten by another branch's.
      expect(announced.sort()).toEqual(expected);
      expect(await waitForStatus(p, id)).toMatchObject({
        status: "COMPLETED",
        output: [2, 4, 6, 8, 10],
        debug: { pause: null, hits: { bp1: 1, bp2: 5 } },
      });
    });

    it("a pause left without a command past its idle timeout cancels the run", async () => {
      const p = rt.platform;
      const id = await run(p, TWO_STEPS, { debug: debug([{ type: "before_step", step: "a" }], 1) });
      await pausedAt(p, id);
      expect(await waitForStatus(p, id)).toMatchObject({
        status: "CANCELLED",
        error: "debug session idle for 1s",
        currentStep: null,
        debug: { pause: null },
      });
    });

    it("a command that claimed the pause before its idle timer was handled is carried out, not cancelled", async () => {
      const p = rt.platform;
      const idle = p.nc.subscribe(subjects(rt.ns).execDebug("*"));
      await p.nc.flush();
      const id = await run(p, TWO_STEPS, { debug: debug([{ type: "before_step", step: "b" }], 1) });
      const paused = await pausedAt(p, id);
      const claimed = await claimPause(p.store, id, paused.debug.pause.id, {
        command: "continue",
        body: {},
        by: "ada",
      });
      if (!claimed.ok) throw new Error(claimed.message);
      // The timer's message, then two more deliveries of it (its handler ran at least twice): the pause held.
      for await (const m of idle) {
        const msg = m.json<{ executionId: string; command: string }>();
        if (msg.executionId === id && msg.command === "idle") break;
      }
      idle.unsubscribe();
      const delivered = async () =>
        (await p.jsm.consumers.info(streamNames(rt.ns).cmd, consumerNames().executor)).delivered.consumer_seq;
      const since = await delivered();
      await waitFor(
        async () => {
          const s = (await p.store.executions.get(id))?.value;
          if (s?.status === "CANCELLED") throw new Error(`cancelled under its claimed command: ${s.error}`);
          return (await delivered()) >= since + 2 ? true : undefined;
        },
        { timeoutMs: 20_000, what: "the idle message to be handled again" },
      );
      await p.js.publish(subjects(rt.ns).execDebug(id), JSON.stringify(debugCommandOf(id, claimed.claim)));
      expect(await waitForStatus(p, id)).toMatchObject({ status: "COMPLETED", output: 2 });
    });

    it("a pause past a parked step's timeout: its deadline's timer wakes the run once, and the clock moves on", async () => {
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
        { debug: debug([{ type: "before_step", step: "loop[*].t" }]) },
      );
      const { events, ended: tail } = eventsOf(p.js, rt.ns, id, ["exec_completed", "exec_failed", "exec_cancelled"]);
      const paused = await pausedAt(p, id);
      const deadline = paused.steps.loop!.deadline!;
      // The deadline's timer fires while paused and wakes the run, which parks again.
      const parksAfter = () => events.filter((e) => e.type === "exec_parked" && e.at >= deadline).length;
      // Once, or twice where every command is handled twice.
      const wakes = "WF_REDELIVER_ONCE" in env ? 2 : 1;
      await waitFor(() => parksAfter() >= wakes || undefined, { what: "the deadline's wake to park the run again" });
      // Armed again at the deadline already past, it fired at once, each wake arming it anew: several parks a second.
      const window = Date.now() + 2_000;
      await waitFor(() => (parksAfter() > wakes || Date.now() >= window ? true : undefined), { timeoutMs: 5_000 });
      expect(parksAfter()).toBe(wakes);
      await sendDebugCommand(p.js, p.store, rt.ns, id, paused.debug.pause.id, {
        command: "continue",
        body: {},
        by: "ada",
      });
      const end = await waitForStatus(p, id);
      await tail;
      expect([end.status, end.error]).toEqual(["COMPLETED", null]);
    });

    // A code step times itself (its runner kills it); a container is timed by the run, in memory.
    for (const [shape, branch, failed, cancelled] of [
      ["a code step", `[{ name: slow, type: code, language: bash, timeout: 1, code: "sleep 20" }]`, "slow", null],
      [
        "a parallel of a code step",
        `
          - name: inner
            type: parallel
            timeout: 1
            branches:
              x: [{ name: slow, type: code, language: bash, timeout: 60, code: "sleep 30" }]`,
        "inner",
        "slow",
      ],
    ] as const) {
      it(`${shape} running beside a pause keeps its timeout: it fails while the pause stands, which then resumes`, async () => {
        const p = rt.platform;
        const id = await run(
          p,
          `
  name: timeout-beside-pause
  steps:
    - name: par
      type: parallel
      branches:
        b1: ${branch}
        b2:
          - { name: nap, type: wait, seconds: 0.5 }
          - { name: q, type: transform, output: 1 }
`,
          { debug: debug([{ type: "before_step", step: "q" }]) },
        );
        // Parked once every other branch came to a stop: the timed-out step failed, and its failure is not held.
        const paused = await pausedAt(p, id);
        expect(paused.debug.pause.stepPath).toBe("q");
        expect(paused.debug.held).toEqual([]);
        expect(paused.steps[failed]).toMatchObject({
          status: "FAILED",
          error: expect.stringMatching(/timed out after 1 s/),
        });
        if (cancelled) expect(paused.steps[cancelled]?.status).toBe("CANCELLED");
        expect(paused.steps.q).toBeUndefined();
        const sent = await sendDebugCommand(p.js, p.store, rt.ns, id, paused.debug.pause.id, {
          command: "continue",
          body: {},
          by: "ada",
        });
        expect(sent.ok).toBe(true);
        const end = await waitForStatus(p, id);
        expect(end).toMatchObject({
          status: "FAILED",
          debug: { pause: null },
          steps: { q: { status: "COMPLETED", output: 1 }, par: { status: "FAILED" }, [failed]: { status: "FAILED" } },
        });
        expect(end.error).toMatch(/timed out after 1 s/);
      });
    }

    it("a step timing out beside a pause retries as its retry says: the retry waits for the pause, then runs", async () => {
      const p = rt.platform;
      const id = await run(
        p,
        `
  name: retry-beside-pause
  steps:
    - name: par
      type: parallel
      branches:
        b1:
          - name: slow
            type: code
            language: bash
            timeout: 1
            retry: { max_attempts: 2, backoff: fixed, initial_delay: 0.2 }
            code: "sleep 20"
        b2:
          - { name: nap, type: wait, seconds: 0.5 }
          - { name: q, type: transform, output: 1 }
`,
        { debug: debug([{ type: "before_step", step: "q" }]) },
      );
      // Its first attempt timed out and its retry is due, but waits at its boundary for the pause to end.
      const paused = await pausedAt(p, id);
      expect(paused.debug.held).toEqual([]);
      expect(paused.steps.slow).toMatchObject({
        status: "RUNNING",
        attempts: 1,
        retryAt: expect.any(Number),
        error: expect.stringMatching(/timed out after 1 s/),
      });
      await sendDebugCommand(p.js, p.store, rt.ns, id, paused.debug.pause.id, {
        command: "continue",
        body: {},
        by: "ada",
      });
      const end = await waitForStatus(p, id);
      expect(end).toMatchObject({
        status: "FAILED",
        steps: { slow: { status: "FAILED", attempts: 2 }, q: { output: 1 } },
      });
    });

    it("a container beside a pause, stopped at a boundary by it: its deadline passing during the pause fails nothing", async () => {
      const p = rt.platform;
      const id = await run(
        p,
        `
  name: stopped-beside-pause
  steps:
    - name: par
      type: parallel
      branches:
        b1:
          - name: inner
            type: parallel
            timeout: 1
            branches:
              x: [{ name: nap, type: wait, seconds: 0.5 }, { name: x2, type: transform, output: 2 }]
        b2:
          - { name: nap2, type: wait, seconds: 0.2 }
          - { name: q, type: transform, output: 1 }
`,
        { debug: debug([{ type: "before_step", step: "q" }]) },
      );
      const { events, ended: tail } = eventsOf(p.js, rt.ns, id, ["exec_completed", "exec_failed", "exec_cancelled"]);
      const paused = await pausedAt(p, id);
      const deadline = paused.steps.inner!.deadline!;
      // `inner` waits before x2 for the pause: its deadline's timer wakes the run, which replays it and parks again.
      const wakes = "WF_REDELIVER_ONCE" in env ? 2 : 1;
      await waitFor(
        () => events.filter((e) => e.type === "exec_parked" && e.at >= deadline).length >= wakes || undefined,
        { what: "the deadline's wake to park the run again" },
      );
      const woken = (await p.store.executions.get(id))!.value;
      expect([woken.steps.inner?.status, woken.steps.inner?.error]).toEqual(["RUNNING", null]);
      await sendDebugCommand(p.js, p.store, rt.ns, id, paused.debug.pause.id, {
        command: "continue",
        body: {},
        by: "ada",
      });
      const end = await waitForStatus(p, id);
      await tail;
      expect([end.status, end.error, end.steps.x2?.output]).toEqual(["COMPLETED", null, 2]);
    });

    it("step_into at a workflow step, another branch pausing first: the child still pauses before its first step", async () => {
      const p = rt.platform;
      const childYaml = `
  name: stepped-child-${newId()}
  steps:
    - { name: c1, type: transform, output: 20 }
`;
      const child = await storedWorkflow(p, childYaml);
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
          debug: debug([
            { type: "before_step", step: "call" },
            { type: "before_step", step: "q" },
          ]),
        },
      );
      const first = await pausedAt(p, id);
      expect(first.debug.pause.stepPath).toBe("call");
      await sendDebugCommand(p.js, p.store, rt.ns, id, first.debug.pause.id, {
        command: "step_into",
        body: {},
        by: "ada",
      });
      // The other branch's breakpoint pauses the run next, before `call` starts its child.
      const second = await pausedAt(p, id, first.debug.pause.id);
      expect(second.debug.pause.stepPath).toBe("q");
      const childId = await waitFor(
        async () => (await p.store.executions.get(id))?.value.steps.call?.childExecutionId ?? undefined,
      );
      const stepped = await waitFor(async () => {
        const c = (await p.store.executions.get(childId))?.value;
        return c && (c.debug?.pause || TERMINAL_STATUSES.has(c.status)) ? c : undefined;
      });
      expect([stepped.status, stepped.debug?.pause?.stepPath]).toEqual(["RUNNING", "c1"]);
      await sendDebugCommand(p.js, p.store, rt.ns, id, second.debug.pause.id, {
        command: "abort",
        body: {},
        by: "ada",
      });
    });
  });
}

describe("a paused debug run and restarts", () => {
  let server: NatsServerHandle;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("stays paused when its runtime stops and another starts; a command sent after the restart is obeyed", async () => {
    const config = testConfig(server);
    let rt = await startRuntime(config);
    try {
      const id = await run(rt.platform, TWO_STEPS, { debug: debug([{ type: "before_step", step: "b" }]) });
      const paused = await pausedAt(rt.platform, id);
      await rt.stop();
      rt = await startRuntime(config);
      // Nothing in memory held it: the new runtime leaves it paused until told otherwise.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const still = (await rt.platform.store.executions.get(id))!.value;
      expect(still).toMatchObject({
        status: "RUNNING",
        currentStep: "b",
        holder: null,
        debug: { pause: { id: paused.debug.pause.id } },
      });
      const sent = await sendDebugCommand(rt.platform.js, rt.platform.store, rt.ns, id, paused.debug.pause.id, {
        command: "skip",
        body: { output: "stubbed" },
        by: "ada",
      });
      expect(sent.ok).toBe(true);
      expect(await waitForStatus(rt.platform, id)).toMatchObject({
        status: "COMPLETED",
        output: "stubbed",
        steps: { b: { status: "COMPLETED", output: "stubbed" } },
      });
    } finally {
      await rt.stop();
    }
  });
});
