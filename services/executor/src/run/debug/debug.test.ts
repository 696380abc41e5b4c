import { afterEach, describe, expect, it, vi } from "vitest";
import {
  adoptBreakpoints,
  Breakpoint,
  claimPause,
  idleDue,
  replaceBreakpoints,
  stepMatches,
  waitingPoints,
  withBreakpointIds,
  type BreakpointInput,
  type DebugCommandBody,
  type ExecutionSnapshot,
  type PauseRecord,
} from "@wf/shared/execution";
import type { LlmAnswer } from "../../ai/gateway";
import { MemoryCommitter, answer, codeFailed, codeOk, untilAborted } from "../fake-run";
import { jsonBytes } from "../result-limits";
import { applyClaimedCommand } from "./commands";
import { formatIdle, idleError } from "./idle";
import { Session, storeHolding } from "./testing/session";

function code(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, type: "code", language: "python", code: "pass", ...extra };
}

/** Every record the session writes from now on, as the store held it after each write: where a crash could leave it. */
function everyWrite(s: Session): ExecutionSnapshot[] {
  const writes: ExecutionSnapshot[] = [];
  const flush = s.t.committer.flush.bind(s.t.committer);
  s.t.committer.flush = async () => {
    await flush();
    writes.push(structuredClone(s.t.committer.stored));
  };
  return writes;
}

/**
 * Every write of each run a `continue` wakes, from the pause `s` stands at to the run's end: where a crash could leave
 * the record.
 */
async function writesOfContinues(s: Session): Promise<ExecutionSnapshot[]> {
  const writes: ExecutionSnapshot[] = [];
  for (let r = "parked"; r === "parked";) {
    expect((await s.send("continue")).ok).toBe(true);
    const during = everyWrite(s);
    r = await s.run();
    writes.push(...during);
  }
  return writes;
}

/**
 * The pauses of a run taken over from `stored` (`s` resumed from it), each answered `continue`, to the run's end: first
 * those `stored` records (`before`, the points it was resumed from that count, then its standing pause), each once; at
 * most `most` in all.
 */
async function pausesTakenOverFrom(
  s: Session,
  stored: ExecutionSnapshot,
  before: string[],
  most: number,
): Promise<string[]> {
  const paused = [...before];
  if (stored.debug!.pause) paused.push(stored.debug!.pause.stepPath);
  let r = await s.run();
  // Taken over at a pause, the run finds it there; else it pauses at the next.
  if (r === "parked" && s.pause.id !== stored.debug!.pause?.id) paused.push(s.pause.stepPath);
  while (r === "parked") {
    expect(paused.length).toBeLessThanOrEqual(most);
    r = await s.resume("continue");
    if (r === "parked") paused.push(s.pause.stepPath);
  }
  return paused;
}

/** Every order of `items`. */
function orders(items: readonly number[]): number[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((first, k) => orders(items.filter((_, j) => j !== k)).map((rest) => [first, ...rest]));
}

/**
 * Polls, a bounded number of turns of the event loop (`microtasks`: of the microtask queue, so that nothing that waits
 * for the event loop, a store's write say, comes between), until `holds`: what a branch's step waits for to complete.
 */
async function until(what: string, holds: () => boolean, microtasks = false): Promise<void> {
  for (let turn = 0; turn < 1_000; turn++) {
    if (holds()) return;
    await (microtasks ? Promise.resolve() : new Promise((resolve) => setImmediate(resolve)));
  }
  throw new Error(`never ${what}`);
}

function usageAnswer(text: string, tokens: number, toolCalls: LlmAnswer["toolCalls"] = []): LlmAnswer {
  return { ...answer(text), toolCalls, usage: { promptTokens: tokens, completionTokens: 0, totalTokens: tokens } };
}

describe("step paths", () => {
  it("a path names the step recorded at it; [*] stands for any iteration", () => {
    expect(stepMatches("b", "b")).toBe(true);
    expect(stepMatches("b", "loop[3].b")).toBe(false);
    expect(stepMatches("b", "ab")).toBe(false);
    expect(stepMatches("outer[*].inner[*].b", "outer[0].inner[11].b")).toBe(true);
    expect(stepMatches("loop[2].b", "loop[2].b")).toBe(true);
    expect(stepMatches("loop[2].b", "loop[12].b")).toBe(false);
    expect(stepMatches("loop[*].b", "loop[12].b")).toBe(true);
    expect(stepMatches("loop[*].b", "other[1].b")).toBe(false);
  });
});

describe("before_step", () => {
  it("pauses before the step starts, with its rendered input; the execution parks RUNNING at that step", async () => {
    const s = new Session(
      [code("a", { input: { n: "{{ vars.n }}" } }), code("b")],
      [{ type: "before_step", step: "a" }],
      { vars: { n: 3 } },
    );
    expect(await s.run()).toBe("parked");
    expect(s.effects.codeCalls).toHaveLength(0);
    expect(s.snap.steps.a).toBeUndefined();
    expect(s.snap).toMatchObject({ status: "RUNNING", currentStep: "a" });
    expect(s.pause).toMatchObject({
      breakpointId: "bp1",
      type: "before_step",
      stepPath: "a",
      phase: "before",
      context: { input: { n: 3 }, vars: { n: 3 } },
    });
    expect(s.snap.debug!.hits).toEqual({ bp1: 1 });
    const paused = s.t.committer.events.find((e) => e.type === "debug_paused");
    expect(paused).toMatchObject({ step: "a", data: { id: s.pause.id, breakpointId: "bp1" } });
    expect(s.t.committer.events.at(-1)).toMatchObject({ type: "exec_parked", data: { waitingOn: ["a"] } });
    // Durable: the pause is in what the store holds, and its idle timer is armed.
    expect(s.t.committer.stored.debug!.pause!.id).toBe(s.pause.id);
    expect(s.effects.idleTimers).toEqual([{ pauseId: s.pause.id, dueAt: s.pause.pausedAt + 3_600_000 }]);
  });

  it("continue runs on to the end, never hitting the same breakpoint again there", async () => {
    const s = new Session([code("a"), code("b")], [{ type: "before_step", step: "a" }]);
    await s.run();
    const pauseId = s.pause.id;
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.snap.status).toBe("COMPLETED");
    expect(s.effects.codeCalls).toHaveLength(2);
    expect(s.snap.debug).toMatchObject({
      pause: null,
      hits: { bp1: 1 },
      resumed: [{ pauseId, command: "continue", passed: true }],
    });
    expect(s.commandEvents).toEqual([
      { type: "debug_resumed", step: "a", data: { pauseId, command: "continue", by: "ada" } },
    ]);
  });

  it("a breakpoint that is not enabled never hits", async () => {
    const s = new Session([code("a")], [{ type: "before_step", step: "a", enabled: false }]);
    expect(await s.run()).toBe("terminal");
    expect(s.snap.debug!.hits).toEqual({});
  });

  it("hitCount pauses on the n-th hit only, every hit counted", async () => {
    const s = new Session(
      [{ name: "loop", type: "foreach", items: [1, 2, 3], steps: [code("x", { input: "{{ item }}" })] }],
      [{ type: "before_step", step: "loop[*].x", hitCount: 2 }],
    );
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({ stepPath: "loop[1].x", context: { input: 2, item: 2 } });
    expect(s.effects.codeCalls).toHaveLength(1);
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.snap.debug!.hits).toEqual({ bp1: 3 });
    expect(s.effects.codeCalls).toHaveLength(3);
  });
});

describe("after_step and set", () => {
  it("pauses after the step completed, before the next sees its output; an edited output is what the next step sees", async () => {
    const s = new Session(
      [code("a"), { name: "b", type: "transform", output: { got: "{{ steps.a.output }}" } }],
      [{ type: "after_step", step: "a" }],
    );
    s.effects.code = () => codeOk({ n: 1 });
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({
      phase: "after",
      stepPath: "a",
      context: { output: { n: 1 }, outputs: { a: { n: 1 } } },
    });
    expect(s.snap.steps.b).toBeUndefined();

    const set = await s.send("set", { output: { n: 42 } });
    expect(set.ok).toBe(true);
    expect(s.applied).toBe("edited");
    // A set does not resume: the pause stays, edited, for more sets or a resuming command.
    expect(s.pause.context.output).toEqual({ n: 42 });
    expect(s.snap.debug!.edits).toMatchObject([
      { field: "output", stepPath: "a", by: "ada", before: { n: 1 }, after: { n: 42 } },
    ]);
    expect(s.commandEvents.map((e) => e.type)).toEqual(["debug_edited"]);

    expect(await s.resume("continue")).toBe("terminal");
    expect(s.step("a").output).toEqual({ n: 42 });
    expect(s.snap.output).toEqual({ got: { n: 42 } });
    expect(s.effects.codeCalls).toHaveLength(1);
  });

  it("set vars keeps a declared variable's type: another is refused at the claim, the pause still open", async () => {
    const s = new Session([code("a")], [{ type: "before_step", step: "a" }], {
      variables: { tag: { type: "string", default: "x" } },
      vars: { tag: "x" },
    });
    await s.run();
    expect(await s.send("set", { vars: { tag: 123 } })).toEqual({
      ok: false,
      reason: "invalid",
      message: "set vars: `tag` must be a string, not the number 123",
    });
    expect(s.snap.debug!.edits).toEqual([]);
    // Undeclared names stay free: a rerun takes only the declared ones.
    expect(await s.send("set", { vars: { tag: "y", scratch: 1 } })).toMatchObject({ ok: true });
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.snap.vars).toMatchObject({ tag: "y", scratch: 1 });
  });

  it("set vars changes what the steps after see, and input replaces the paused step's rendered input", async () => {
    const s = new Session(
      [code("a", { input: { n: "{{ vars.n }}" } }), { name: "b", type: "transform", output: "{{ vars.n }}" }],
      [{ type: "before_step", step: "a" }],
      {
        vars: { n: 1 },
      },
    );
    await s.run();
    await s.send("set", { vars: { n: 5 } });
    await s.send("set", { input: { n: 99 } });
    expect(s.pause.context).toMatchObject({ vars: { n: 5 }, input: { n: 99 } });
    expect(s.snap.debug!.edits.map((e) => [e.field, e.before, e.after])).toEqual([
      ["vars", { n: 1 }, { n: 5 }],
      ["input", { n: 1 }, { n: 99 }],
    ]);
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.effects.codeCalls.map((c) => [c.input, c.vars])).toEqual([[{ n: 99 }, { n: 5 }]]);
    expect(s.snap.output).toBe(5);
  });
});

describe("skip", () => {
  it("a skipped step never runs: SKIPPED, and the run goes on", async () => {
    const s = new Session([code("a"), code("b")], [{ type: "before_step", step: "a" }]);
    await s.run();
    expect(await s.resume("skip")).toBe("terminal");
    // Marked, so that no rerun takes it for a step that ran (rerun-plan.ts).
    expect(s.step("a")).toMatchObject({ status: "SKIPPED", byDebugger: true });
    expect(s.step("b").byDebugger).toBeUndefined();
    expect(s.effects.codeCalls).toHaveLength(1);
    expect(s.snap.status).toBe("COMPLETED");
  });

  it("skip with an output completes the step with it, unrun, and records the edit", async () => {
    const s = new Session(
      [code("a"), { name: "b", type: "transform", output: "{{ steps.a.output }}" }],
      [{ type: "before_step", step: "a" }],
    );
    await s.run();
    expect(await s.resume("skip", { output: "stub" })).toBe("terminal");
    expect(s.step("a")).toMatchObject({ status: "COMPLETED", output: "stub", attempts: 0, byDebugger: true });
    expect(s.effects.codeCalls).toHaveLength(0);
    expect(s.snap.output).toBe("stub");
    expect(s.snap.debug!.edits).toMatchObject([{ field: "output", after: "stub" }]);
  });
});

describe("on_error and retry", () => {
  it("pauses at the failure before it is handled; retry after a set runs the step again now, and it passes", async () => {
    const s = new Session([code("flaky"), code("after")], [{ type: "on_error", step: "flaky" }], {
      vars: { fixed: false },
    });
    s.effects.code = (req) => (req.vars.fixed ? codeOk("ok") : codeFailed("broken"));
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({
      phase: "error",
      stepPath: "flaky",
      occurrence: 1,
      // No `retry`: continue fails the step.
      context: { error: "step `flaky`: broken", attempt: 1, retryable: false },
    });
    expect(s.step("flaky")).toMatchObject({ status: "RUNNING", attempts: 1 });

    await s.send("set", { vars: { fixed: true } });
    expect(await s.resume("retry")).toBe("terminal");
    expect(s.step("flaky")).toMatchObject({ status: "COMPLETED", attempts: 2, output: "ok" });
    expect(s.effects.codeCalls).toHaveLength(3);
    expect(s.snap.status).toBe("COMPLETED");
  });

  it("replayed while paused at the failure (another wake), the attempt is not run again; continue then fails the step as it would have", async () => {
    const s = new Session([code("bad")], [{ type: "on_error" }]);
    s.effects.code = () => codeFailed("no");
    await s.run();
    const pauseId = s.pause.id;
    const woken = s.t.resumed();
    expect(await woken.run.run()).toBe("parked");
    expect(s.effects.codeCalls).toHaveLength(1);
    expect(woken.snap.debug!.pause!.id).toBe(pauseId);
    s.t = woken;
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.step("bad")).toMatchObject({ status: "FAILED", error: "step `bad`: no", attempts: 1 });
    expect(s.snap.status).toBe("FAILED");
    expect(s.effects.codeCalls).toHaveLength(1);
  });

  it("says at each failure whether the step's retry tries it again: not after its last attempt", async () => {
    const s = new Session(
      [code("flaky", { retry: { max_attempts: 3, backoff: "fixed", initial_delay: 0.001 } })],
      [{ type: "on_error", step: "flaky" }],
    );
    s.effects.code = () => codeFailed("broken");
    const seen: unknown[] = [];
    for (let r = await s.run(); r === "parked"; r = await s.resume("continue"))
      seen.push([s.pause.context.attempt, s.pause.context.retryable]);
    expect(seen).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(s.step("flaky")).toMatchObject({ status: "FAILED", attempts: 3 });
  });

  it("on_retry pauses after the backoff, before the next attempt", async () => {
    const s = new Session(
      [code("flaky", { retry: { max_attempts: 2, backoff: "fixed", initial_delay: 0.001 } })],
      [{ type: "on_retry", step: "flaky" }],
    );
    s.effects.code = () => (s.effects.codeCalls.length === 1 ? codeFailed("first") : codeOk("second"));
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({
      phase: "retry",
      occurrence: 2,
      context: { attempt: 2, error: "step `flaky`: first" },
    });
    expect(s.effects.codeCalls).toHaveLength(1);
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.step("flaky")).toMatchObject({ status: "COMPLETED", attempts: 2 });
  });
});

describe("expression breakpoints", () => {
  it("conditional pauses before the first step where its expression is truthy", async () => {
    const s = new Session(
      [code("a"), code("b"), code("c")],
      [{ type: "conditional", expression: "steps.a.output > 1" }],
    );
    s.effects.code = () => codeOk(s.effects.codeCalls.length * 2);
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({ type: "conditional", stepPath: "b" });
    // Resumed, it does not hit b again; it still holds before c, where it hits once more.
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause.stepPath).toBe("c");
    expect(s.effects.codeCalls).toHaveLength(2);
  });

  it("watch pauses after the step whose completion changed its value, with the value before and after", async () => {
    const s = new Session(
      [
        { name: "a", type: "transform", output: 1 },
        { name: "b", type: "transform", output: "{{ vars.x }}" },
        { name: "c", type: "transform", output: 2 },
      ],
      [{ type: "watch", expression: "steps.c.output" }],
      { vars: { x: 0 } },
    );
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({
      type: "watch",
      phase: "after",
      stepPath: "c",
      context: { watch: { expression: "steps.c.output", before: null, after: 2 } },
    });
  });

  it("a watch whose value a step changed while another branch was paused pauses after that step in its turn, once", async () => {
    const s = new Session(
      [
        {
          name: "par",
          type: "parallel",
          branches: {
            b1: [
              { name: "p1", type: "transform", output: 1 },
              { name: "p2", type: "transform", output: 2 },
            ],
            b2: [{ name: "q1", type: "transform", output: 3 }],
          },
        },
      ],
      [
        { type: "before_step", step: "q1" },
        { type: "watch", expression: "steps.p1.output" },
      ],
    );
    const pauses: string[] = [];
    for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
      expect(pauses.length).toBeLessThan(2);
      pauses.push(`${s.pause.type} ${s.pause.stepPath}`);
      // Stopped after p1: p2 waits for the watch's pause.
      expect(s.snap.steps.p2).toBeUndefined();
    }
    // p1 completed while q1 was paused at: its change pauses after it once q1's pause is over, and at no later step.
    expect(pauses).toEqual(["before_step q1", "watch p1"]);
    expect(s.snap.debug!.hits).toEqual({ bp1: 1, bp2: 1 });
    expect(s.snap.debug!.watched.bp2?.value).toBe(1);
    expect(s.snap.status).toBe("COMPLETED");
  });

  it("a watch three branches change at one moment pauses after each of their steps in turn, each change once", async () => {
    const branch = (n: number) => [
      code(`s${n}`),
      { name: `t${n}`, type: "transform", output: `{{ steps.s${n}.output }}` },
    ];
    const s = new Session(
      [{ name: "par", type: "parallel", branches: { b1: branch(1), b2: branch(2), b3: branch(3) } }],
      [{ type: "watch", expression: '$count([steps.s1, steps.s2, steps.s3][status = "COMPLETED"])' }],
    );
    s.effects.code = (req) => codeOk(`${req.code} ran`);
    const paused: string[] = [];
    const changes: string[] = [];
    for (let r = await s.run(); r === "parked";) {
      expect(paused.length).toBeLessThan(3);
      const { stepPath, context } = s.pause;
      paused.push(stepPath);
      changes.push(`${context.watch!.before} -> ${context.watch!.after}`);
      expect(s.snap.steps[`t${stepPath.slice(1)}`]).toBeUndefined();
      // Woken again while paused (a takeover replays the run): it stays at this pause, writing no other.
      s.t = s.t.resumed();
      expect(await s.run()).toBe("parked");
      expect(s.pause.stepPath).toBe(stepPath);
      expect((await s.send("set", { output: `edited at ${stepPath}` })).ok).toBe(true);
      r = await s.resume("continue");
    }
    expect(paused.sort()).toEqual(["s1", "s2", "s3"]);
    expect(changes.sort()).toEqual(["0 -> 1", "1 -> 2", "2 -> 3"]);
    expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { hits: { bp1: 3 }, waiting: [] } });
    expect(s.effects.codeCalls).toHaveLength(3);
    expect([1, 2, 3].map((n) => s.step(`t${n}`).output)).toEqual([1, 2, 3].map((n) => `edited at s${n}`));
  });

  it("taken over from any write (a crash), a watch three branches change at one moment pauses at each change once", async () => {
    const threeChanging = () => {
      const branch = (n: number) => [code(`s${n}`)];
      const s = new Session(
        [{ name: "par", type: "parallel", branches: { b1: branch(1), b2: branch(2), b3: branch(3) } }],
        [{ type: "watch", expression: '$count([steps.s1, steps.s2, steps.s3][status = "COMPLETED"])' }],
      );
      s.effects.code = (req) => codeOk(`${req.code} ran`);
      return s;
    };
    const first = threeChanging();
    const writes = everyWrite(first);
    expect(await first.run()).toBe("parked");
    // Among them, writes that caught a step's completion marked waiting before its watch was judged.
    expect(writes.some((w) => w.debug!.waiting.some((x) => x.unfinished !== undefined))).toBe(true);
    for (const stored of writes) {
      const s = threeChanging();
      s.t = s.t.resumed(stored);
      const changes: string[] = [];
      for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
        expect(changes.length).toBeLessThan(3);
        changes.push(`${s.pause.context.watch!.before} -> ${s.pause.context.watch!.after}`);
      }
      const at = `taken over with ${stored.debug!.waiting.map((w) => w.stepPath).join() || "none"} waiting`;
      expect(changes.sort(), at).toEqual(["0 -> 1", "1 -> 2", "2 -> 3"]);
      expect(s.snap.debug, at).toMatchObject({ hits: { bp1: 3 }, waiting: [] });
      const completedBefore = [1, 2, 3].filter((n) => stored.steps[`s${n}`]?.status === "COMPLETED").length;
      expect(s.effects.codeCalls, at).toHaveLength(3 - completedBefore);
    }
  });

  it("many items changing a watch behind a pause keep their changes within a pause's share of the record, each pausing in turn", async () => {
    const items = Array.from({ length: 40 }, (_, i) => i);
    const s = new Session(
      [{ name: "each", type: "foreach", items, concurrency: 40, steps: [code("s")] }],
      [
        { type: "after_step", step: "each[0].s" },
        { type: "watch", expression: "steps.s.output" },
      ],
    );
    s.effects.code = (req) => codeOk(`${"x".repeat(3_000)} ${String(req.item)}`);
    expect(await s.run()).toBe("parked");
    const waiting = s.snap.debug!.waiting;
    expect(waiting).toHaveLength(39);
    // Each change is 6 KB of values: 39 kept whole would be four times the share.
    const share = s.t.committer.limits.toolCallBytes;
    expect(jsonBytes(waiting)).toBeLessThan(share + 39 * 1024);
    const paused = [`${s.pause.breakpointId} ${s.pause.stepPath}`];
    for (let r = await s.resume("continue"); r === "parked"; r = await s.resume("continue")) {
      expect(paused.length).toBeLessThan(41);
      paused.push(`${s.pause.breakpointId} ${s.pause.stepPath}`);
    }
    // Each item's own change, in turn; then the foreach's, where `steps.s` names no step of its scope.
    expect(paused.sort()).toEqual(
      ["bp1 each[0].s", ...items.slice(1).map((i) => `bp2 each[${i}].s`), "bp2 each"].sort(),
    );
    expect([s.snap.status, s.snap.debug!.hits]).toEqual(["COMPLETED", { bp1: 1, bp2: 41 }]);
  });

  it("foreach_item pauses before the iteration of that index, or where its expression over the item holds", async () => {
    const s = new Session(
      [{ name: "loop", type: "foreach", items: [{ id: 1 }, { id: 2 }, { id: 3 }], steps: [code("x")] }],
      [
        { type: "foreach_item", step: "loop", index: 1 },
        { type: "foreach_item", step: "loop", expression: "item.id = 3" },
      ],
    );
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({
      breakpointId: "bp1",
      phase: "item",
      stepPath: "loop",
      occurrence: 1,
      context: { index: 1, item: { id: 2 } },
    });
    expect(Object.keys(s.snap.steps).sort()).toEqual(["loop", "loop[0].x"]);
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "bp2", occurrence: 2 });
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.effects.codeCalls).toHaveLength(3);
  });
});

describe("step and step_into", () => {
  it("step pauses at the next step boundary of the same or an outer level, passing over a container's inside", async () => {
    const s = new Session(
      [code("a"), { name: "loop", type: "foreach", items: [1, 2], steps: [code("x")] }, code("c")],
      [{ type: "before_step", step: "a" }],
    );
    await s.run();
    expect(await s.resume("step")).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "step", stepPath: "loop", phase: "before" });
    expect(await s.resume("step")).toBe("parked");
    expect(s.pause.stepPath).toBe("c");
    expect(s.effects.codeCalls).toHaveLength(3);
  });

  it("step_into a foreach pauses at its first child step; step then goes on inside it", async () => {
    const s = new Session(
      [{ name: "loop", type: "foreach", items: [1, 2], steps: [code("x"), code("y")] }, code("c")],
      [{ type: "before_step", step: "loop" }],
    );
    await s.run();
    expect(await s.resume("step_into")).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "step", stepPath: "loop[0].x", context: { item: 1 } });
    expect(await s.resume("step")).toBe("parked");
    expect(s.pause.stepPath).toBe("loop[0].y");
    expect(await s.resume("step")).toBe("parked");
    expect(s.pause.stepPath).toBe("loop[1].x");
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.effects.codeCalls).toHaveLength(5);
  });
});

describe("agent tool calls and usage", () => {
  const agents = [{ name: "helper", model: "m", mcp: [{ name: "crm", url: "http://crm.invalid/mcp" }] }];

  it("tool_call pauses before the MCP call; edited arguments are used, and the conversation goes on without calling the model again", async () => {
    const s = new Session(
      [{ name: "ask", type: "agent", agent: "helper", prompt: "look up 1" }],
      [{ type: "tool_call", tool: "lookup" }],
      { agents },
    );
    s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
    s.effects.llmScript = () =>
      s.effects.llmCalls.length === 1
        ? usageAnswer("", 5, [{ id: "c1", name: "crm__lookup", arguments: '{"id":1}' }])
        : usageAnswer("done", 5);
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({
      type: "tool_call",
      phase: "tool_call",
      stepPath: "ask",
      occurrence: 1,
      context: { toolCall: { server: "crm", tool: "lookup", arguments: { id: 1 } } },
    });
    expect(s.effects.toolCalls).toHaveLength(0);
    expect(s.snap.debug!.checkpoint).toMatchObject({ stepPath: "ask", attempt: 1 });

    await s.send("set", { arguments: { id: 2 } });
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.effects.toolCalls).toEqual([{ server: "crm", tool: "lookup", args: { id: 2 } }]);
    expect(s.effects.llmCalls).toHaveLength(2);
    expect(s.step("ask")).toMatchObject({
      status: "COMPLETED",
      output: "done",
      attempts: 1,
      usage: { totalTokens: 10 },
    });
    expect(s.step("ask").toolCalls).toMatchObject([{ tool: "lookup", arguments: { id: 2 }, result: '{"id":2}' }]);
    expect(s.snap.debug!.checkpoint).toBeNull();
  });

  /** Three branches, each an agent step `a<n>` that calls crm's lookup once, then answers (5 tokens a call). */
  const threeAgents = (breakpoints: BreakpointInput[]) => {
    const branch = (n: number) => [{ name: `a${n}`, type: "agent", agent: "helper", prompt: `look up ${n}` }];
    const s = new Session(
      [{ name: "par", type: "parallel", branches: { b1: branch(1), b2: branch(2), b3: branch(3) } }],
      breakpoints,
      { agents },
    );
    s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
    s.effects.llmScript = (req) => {
      const last = req.messages.at(-1)!;
      if (last.role !== "user") return usageAnswer("done", 5);
      const id = Number(last.text.split(" ").at(-1));
      return usageAnswer("", 5, [{ id: `c${id}`, name: "crm__lookup", arguments: JSON.stringify({ id }) }]);
    };
    return s;
  };

  /**
   * Answers every pause with continue (a set first, if given), woken twice at each; the pauses in the order they came,
   * as `phase path n`.
   */
  async function eachInTurn(s: Session, bound: number, set?: (pause: PauseRecord) => DebugCommandBody) {
    const paused: string[] = [];
    for (let r = await s.run(); r === "parked";) {
      expect(paused.length).toBeLessThan(bound);
      const { id, phase, stepPath, occurrence } = s.pause;
      paused.push(`${phase} ${stepPath} ${occurrence}`);
      // Woken again while paused (a takeover replays the run): it stays at this pause, calling no model meanwhile.
      const calls = s.effects.llmCalls.length;
      s.t = s.t.resumed();
      expect(await s.run()).toBe("parked");
      expect([s.pause.id, s.effects.llmCalls.length]).toEqual([id, calls]);
      if (set) expect((await s.send("set", set(s.pause))).ok).toBe(true);
      r = await s.resume("continue");
    }
    return paused;
  }

  it("three agents reaching a tool_call at one moment pause before each call in turn: its arguments set there are used, the model called once a turn", async () => {
    const s = threeAgents([{ type: "tool_call", tool: "lookup" }]);
    const paused = await eachInTurn(s, 3, (p) => ({ arguments: { id: 100 + Number(p.stepPath.slice(1)) } }));
    expect(paused.sort()).toEqual(["tool_call a1 1", "tool_call a2 1", "tool_call a3 1"]);
    expect(s.effects.toolCalls.map((c) => (c.args as { id: number }).id).sort()).toEqual([101, 102, 103]);
    // Each conversation went on from where it waited: two calls per agent, none made again.
    expect(s.effects.llmCalls).toHaveLength(6);
    expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { hits: { bp1: 3 }, waiting: [], checkpoint: null } });
  });

  it("agents reaching a tool_call behind another's pause pause before their calls in the order they came", async () => {
    const arrival = [1, 3, 2];
    const s = threeAgents([{ type: "tool_call", tool: "lookup" }]);
    const script = s.effects.llmScript;
    // Each agent's first answer (its tool call) comes once the agent before it in `arrival` paused or waits its turn.
    s.effects.llmScript = async (req, signal) => {
      const last = req.messages.at(-1)!;
      const before =
        last.role === "user" ? arrival[arrival.indexOf(Number(last.text.split(" ").at(-1))) - 1] : undefined;
      if (before !== undefined) {
        const at = `a${before}`;
        await until(`${at} stopped before its call`, () => {
          const d = s.snap.debug!;
          return d.pause?.stepPath === at || d.waiting.some((w) => w.stepPath === at);
        });
      }
      return script(req, signal);
    };
    expect(await eachInTurn(s, 3)).toEqual(arrival.map((n) => `tool_call a${n} 1`));
    // Each conversation went on from where it waited: two calls per agent, none made again.
    expect(s.effects.llmCalls).toHaveLength(6);
    expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { hits: { bp1: 3 }, waiting: [], checkpoint: null } });
  });

  it("a tool call behind another agent's pause that its hitCount does not pause is made at once, its hit written first", async () => {
    const s = threeAgents([{ type: "tool_call", tool: "lookup", hitCount: 2 }]);
    // What a crash at each call would leave in the store: the hits counted, and the points waiting.
    const stored: string[] = [];
    const call = s.effects.mcpCall.bind(s.effects);
    s.effects.mcpCall = async (server, tool, args) => {
      const d = s.t.committer.stored.debug!;
      stored.push(`a${String(args.id)}: ${d.hits.bp1 ?? 0} hits, waiting ${d.waiting.map((w) => w.stepPath).join()}`);
      return call(server, tool, args);
    };
    expect(await s.run()).toBe("parked");
    const second = s.pause.stepPath;
    expect(s.pause).toMatchObject({ breakpointId: "bp1", phase: "tool_call" });
    // The first and third calls were made, the third behind the second's pause, with its hit in the store.
    expect(s.effects.toolCalls).toHaveLength(2);
    expect(s.snap.debug).toMatchObject({ hits: { bp1: 3 }, waiting: [] });
    const third = stored[1]!;
    expect(third).toMatch(/^a\d: 3 hits, waiting $/);
    expect(await s.resume("continue")).toBe("terminal");
    expect(stored.at(-1)).toMatch(new RegExp(`^${second}: `));
    expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { hits: { bp1: 3 }, waiting: [] } });
    expect(s.effects.toolCalls).toHaveLength(3);
  });

  /**
   * A parallel: `a` (an after_step breakpoint, which pauses) beside an agent step `ask` whose model asks for the tool
   * three times, one call a turn, then answers; its first LLM call comes once a has paused, so its calls come behind
   * that pause, each written before it is made.
   */
  const callsBehindAPause = (breakpoints: BreakpointInput[]) => {
    const s = new Session(
      [
        {
          name: "par",
          type: "parallel",
          branches: {
            left: [code("a")],
            right: [{ name: "ask", type: "agent", agent: "helper", prompt: "look up" }],
          },
        },
      ],
      [{ id: "a", type: "after_step", step: "a" }, ...breakpoints],
      { agents },
    );
    s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
    s.effects.llmScript = async (req) => {
      await until("a paused", () => s.snap.debug!.hits.a === 1);
      const id = req.messages.filter((m) => m.role === "tool").length + 1;
      return id > 3
        ? usageAnswer("done", 5)
        : usageAnswer("", 5, [{ id: `c${id}`, name: "crm__lookup", arguments: JSON.stringify({ id }) }]);
    };
    return s;
  };

  // The usage breakpoint hits from the second LLM call on (the first has spent nothing before it): its 2nd hit is at 3.
  it.each([
    ["tool_call", 2, { type: "tool_call", tool: "lookup", hitCount: 2 }],
    ["llm_call", 3, { type: "usage", tokens: 1, hitCount: 2 }],
  ] as const)(
    "taken over from any write mid-attempt (a crash), a %s hit is counted once: hitCount 2 pauses at call %i",
    async (phase, call, bp) => {
      const first = callsBehindAPause([{ id: "c", ...bp }]);
      const writes = everyWrite(first);
      expect(await first.run()).toBe("parked");
      // The first call's hit is counted, and written, before the call is made; the second waits its turn.
      const midAttempt = writes.filter((w) => w.steps.ask?.status === "RUNNING" && w.debug!.hits.c === 1);
      expect(midAttempt.length).toBeGreaterThan(0);
      for (const stored of [first.t.committer.stored, ...midAttempt]) {
        const s = callsBehindAPause([{ id: "c", ...bp }]);
        s.t = s.t.resumed(stored);
        const paused: string[] = [];
        for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
          expect(paused.length).toBeLessThan(3);
          paused.push(`${s.pause.breakpointId} ${s.pause.phase} ${s.pause.occurrence}`);
        }
        expect(paused).toContain(`c ${phase} ${call}`);
        expect(paused.filter((p) => p.startsWith("c "))).toHaveLength(1);
        // What kept the count once is gone with the step.
        expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { waiting: [], callsPassed: [] } });
      }
    },
  );

  /** callsBehindAPause, but the model asks for `tools` (of crm), one call a turn, then answers. */
  const toolsBehindAPause = (breakpoint: BreakpointInput, tools: readonly string[]) => {
    const s = callsBehindAPause([{ id: "c", ...breakpoint }]);
    s.effects.tools = ["lookup", "other"].map((name) => ({ name, description: "", inputSchema: {} }));
    s.effects.llmScript = async (req) => {
      await until("a paused", () => s.snap.debug!.hits.a === 1);
      const n = req.messages.filter((m) => m.role === "tool").length;
      const tool = tools[n];
      return tool === undefined
        ? usageAnswer("done", 5)
        : usageAnswer("", 5, [{ id: `c${n + 1}`, name: `crm__${tool}`, arguments: JSON.stringify({ id: n + 1 }) }]);
    };
    return s;
  };

  // First the calls of the attempt a crash cuts short, then those the model asks for when a takeover runs it again; the
  // call the second hit pauses at then (its number, its tool): a call of another tool where one was passed is new.
  it.each([
    ["the same calls", {}, ["lookup", "lookup", "lookup"], ["lookup", "lookup", "lookup"], "2 lookup"],
    ["another tool at the call passed", {}, ["lookup", "lookup"], ["other", "lookup"], "1 other"],
    [
      "a filtered tool before the call passed",
      { tool: "lookup" },
      ["other", "lookup", "lookup"],
      ["lookup"],
      "1 lookup",
    ],
  ] as const)(
    "taken over from any write mid-attempt (a crash), asked for %s, a tool_call's second hit pauses at the second call",
    async (_, filter, before, after, call) => {
      const breakpoint: BreakpointInput = { type: "tool_call", hitCount: 2, ...filter };
      const first = toolsBehindAPause(breakpoint, before);
      const writes = everyWrite(first);
      expect(await first.run()).toBe("parked");
      const midAttempt = writes.filter((w) => w.steps.ask?.status === "RUNNING" && w.debug!.hits.c === 1);
      expect(midAttempt.length).toBeGreaterThan(0);
      for (const [n, stored] of midAttempt.entries()) {
        const s = toolsBehindAPause(breakpoint, after);
        s.t = s.t.resumed(stored);
        const paused: string[] = [];
        for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
          expect(paused.length, `write ${n}`).toBeLessThan(3);
          const { breakpointId, occurrence, context } = s.pause;
          paused.push(`${breakpointId} ${occurrence} ${context.toolCall?.tool ?? ""}`.trim());
        }
        expect(
          paused.filter((p) => p.startsWith("c ")),
          `write ${n}`,
        ).toEqual([`c ${call}`]);
        expect(s.snap, `write ${n}`).toMatchObject({ status: "COMPLETED", debug: { callsPassed: [] } });
      }
    },
  );

  it("three agents passing a usage threshold at one moment pause before each one's next LLM call in turn", async () => {
    // The first calls (0 so far) pass under it; each second call (15 so far, 5 expected) reaches it.
    const s = threeAgents([{ type: "usage", tokens: 16 }]);
    // The first calls answer together, once all three are made: no agent goes on alone to its second call.
    const script = s.effects.llmScript!;
    const held: (() => void)[] = [];
    s.effects.llmScript = async (req, signal) => {
      if (req.messages.length === 1 && s.effects.llmCalls.length <= 3) {
        const answered = new Promise<void>((resolve) => held.push(resolve));
        if (held.length === 3) held.forEach((release) => release());
        await answered;
      }
      return script(req, signal);
    };
    expect((await eachInTurn(s, 3)).sort()).toEqual(["llm_call a1 2", "llm_call a2 2", "llm_call a3 2"]);
    expect(s.effects.llmCalls).toHaveLength(6);
    expect(s.effects.toolCalls).toHaveLength(3);
    expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { hits: { bp1: 3 }, waiting: [] } });
  });

  it.each([
    ["tool_call", { type: "tool_call" }],
    ["llm_call", { type: "usage", tokens: 1 }],
  ] as const)(
    "woken again while paused at a %s, the run does not list that call as waiting its turn",
    async (phase, bp) => {
      const s = new Session([{ name: "ask", type: "agent", agent: "helper", prompt: "p" }], [bp], { agents });
      s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
      s.effects.llmScript = () =>
        s.effects.llmCalls.length === 1
          ? usageAnswer("", 1, [{ id: "c1", name: "crm__lookup", arguments: "{}" }])
          : usageAnswer("ok", 1);
      expect(await s.run()).toBe("parked");
      const { id } = s.pause;
      s.t = s.t.resumed();
      expect(await s.run()).toBe("parked");
      expect(s.pause).toMatchObject({ id, phase, stepPath: "ask" });
      // It has its turn: the console lists nothing behind the pause.
      expect([s.snap.debug!.waiting, waitingPoints(s.snap).waiting]).toEqual([[], []]);
    },
  );

  /**
   * `a` beside an agent `ask` that calls crm's lookup once, then answers; breakpoints: after `a` (id `a`), and `bp` (id
   * `c`). `a` completes once ask paused before its call: it waits its turn behind that pause.
   */
  const askBesideA = (bp: BreakpointInput) => {
    const s = new Session(
      [
        {
          name: "par",
          type: "parallel",
          branches: { left: [code("a")], right: [{ name: "ask", type: "agent", agent: "helper", prompt: "p" }] },
        },
      ],
      [
        { id: "a", type: "after_step", step: "a" },
        { id: "c", ...bp },
      ],
      { agents },
    );
    s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
    s.effects.llmScript = (req) =>
      req.messages.at(-1)?.role === "user"
        ? usageAnswer("", 1, [{ id: "c1", name: "crm__lookup", arguments: '{"id":1}' }])
        : usageAnswer("ok", 1);
    s.effects.code = async () => {
      await until("ask paused", () => s.snap.debug!.hits.c === 1);
      return codeOk(1);
    };
    return s;
  };

  // The usage breakpoint hits from the second LLM call on (the first has spent nothing before it).
  it.each([
    ["tool_call", { type: "tool_call" }, { id: 2 }],
    ["llm_call", { type: "usage", tokens: 1 }, { id: 1 }],
  ] as const)(
    "resumed at a %s, a pause written before the run comes back there leaves the attempt to go on from its own, taken over from any write too",
    async (phase, bp, args) => {
      const first = askBesideA(bp);
      expect(await first.run()).toBe("parked");
      expect(first.pause).toMatchObject({ breakpointId: "c", stepPath: "ask", phase });
      expect(first.snap.debug!.waiting.map((w) => w.stepPath)).toEqual(["a"]);
      if (phase === "tool_call") expect((await first.send("set", { arguments: args })).ok).toBe(true);
      expect((await first.send("continue")).ok).toBe(true);
      // Where a crash could leave the record, from the command on: `a`, listed first, pauses before ask's call.
      const records = [first.t.committer.stored];
      const writes = everyWrite(first);
      expect(await first.run()).toBe("parked");
      expect(first.pause).toMatchObject({ breakpointId: "a", stepPath: "a" });
      records.push(...writes);
      expect(records.some((w) => w.debug!.pause?.stepPath === "a" && w.steps.ask!.status === "RUNNING")).toBe(true);
      expect(await first.resume("continue")).toBe("terminal");
      // The model was called before the pause and once after it: the attempt went on from where it paused.
      expect(first.effects.llmCalls).toHaveLength(2);
      expect(first.step("ask").toolCalls).toMatchObject([{ arguments: args }]);
      for (const [n, stored] of records.entries()) {
        const at = `taken over from write ${n}: ask ${stored.steps.ask?.status}`;
        const s = askBesideA(bp);
        s.t = s.t.resumed(stored);
        let pauses = 0;
        for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
          expect(s.pause, at).toMatchObject({ breakpointId: "a" });
          expect(++pauses, at).toBe(1);
        }
        const made = stored.steps.ask?.status === "COMPLETED" ? 2 : 1;
        expect(made + s.effects.llmCalls.length, at).toBe(2);
        expect(s.step("ask").toolCalls, at).toMatchObject([{ arguments: args }]);
        expect(s.snap, at).toMatchObject({ status: "COMPLETED", debug: { waiting: [], checkpoint: null } });
      }
    },
  );

  /**
   * `w` then `a` beside an agent `ask` that calls crm's lookup once, then answers; a tool_call breakpoint (id `c`). `w`
   * completes once ask paused: `a` waits at its boundary. Resumed, `a` runs once ask went past its call, and ask's
   * answer waits for `a` to complete: the writes `a` makes come between passing the call and the attempt's end.
   */
  const askPastItsCall = () => {
    const s = new Session(
      [
        {
          name: "par",
          type: "parallel",
          branches: {
            left: [code("w", { code: "w" }), code("a", { code: "a" })],
            right: [{ name: "ask", type: "agent", agent: "helper", prompt: "p" }],
          },
        },
      ],
      [{ id: "c", type: "tool_call" }],
      { agents },
    );
    s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
    s.effects.llmScript = async (req) => {
      if (req.messages.at(-1)?.role === "user")
        return usageAnswer("", 1, [{ id: "c1", name: "crm__lookup", arguments: '{"id":1}' }]);
      await until("a completed", () => s.snap.steps.a?.status === "COMPLETED");
      return usageAnswer("ok", 1);
    };
    s.effects.code = async (req) => {
      if (req.code === "w") await until("ask paused", () => s.snap.debug!.hits.c === 1);
      else await until("ask past its call", () => s.snap.debug!.resumed.some((r) => r.passed));
      return codeOk(1);
    };
    return s;
  };

  // The arguments `set` gave the call, and continue; or skip with an output: what the tool server then receives.
  it.each([
    [
      "its arguments set",
      { arguments: { id: 2 } },
      "continue",
      {},
      [{ server: "crm", tool: "lookup", args: { id: 2 } }],
    ],
    ["skip", null, "skip", { output: { mocked: true } }, []],
  ] as const)(
    "taken over from every write between passing a tool call and its attempt's end, the call goes with %s",
    async (_, set, command, body, toolCalls) => {
      const first = askPastItsCall();
      expect(await first.run()).toBe("parked");
      expect(first.pause).toMatchObject({ breakpointId: "c", stepPath: "ask", phase: "tool_call" });
      if (set) expect((await first.send("set", set)).ok).toBe(true);
      expect((await first.send(command, body)).ok).toBe(true);
      const writes = everyWrite(first);
      expect(await first.run()).toBe("terminal");
      expect(first.effects.llmCalls).toHaveLength(2);
      expect(first.effects.toolCalls).toEqual(toolCalls);
      expect(first.snap.debug!.resumed).toEqual([expect.not.objectContaining({ output: expect.anything() })]);
      const between = writes.filter((w) => w.steps.ask?.status === "RUNNING" && w.debug!.resumed[0]?.passed);
      expect(between.length).toBeGreaterThan(0);
      for (const [n, stored] of between.entries()) {
        const at = `taken over from write ${n}: a ${stored.steps.a?.status}`;
        const s = askPastItsCall();
        s.t = s.t.resumed(stored);
        expect(await s.run(), at).toBe("terminal");
        // Its conversation dropped as it went past the call, the attempt starts over: the model asks for the call
        // again, which goes as the command said, never pausing there again, and answers.
        expect(s.effects.llmCalls, at).toHaveLength(2);
        expect(s.effects.toolCalls, at).toEqual(toolCalls);
        expect(s.step("ask").toolCalls, at).toHaveLength(1);
        expect(s.snap, at).toMatchObject({ status: "COMPLETED", debug: { pause: null, waiting: [], hits: { c: 1 } } });
        // Done with once the attempt ended: the call is kept only to say that it paused.
        expect(s.snap.debug!.resumed, at).toEqual([
          {
            breakpointId: "c",
            stepPath: "ask",
            phase: "tool_call",
            pauseId: expect.any(String),
            occurrence: 1,
            command,
            tool: { server: "crm", tool: "lookup" },
            passed: true,
          },
        ]);
      }
    },
  );

  it("resumed at a later call whose conversation was not kept, the attempt starts over and sends an earlier call's set arguments again", async () => {
    const s = new Session([{ name: "ask", type: "agent", agent: "helper", prompt: "p" }], [{ type: "tool_call" }], {
      agents,
    });
    s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
    // The second answer is over a pause's share of the record: the pause before its call keeps no conversation.
    const long = "x".repeat(s.t.committer.limits.toolCallBytes);
    s.effects.llmScript = (req) => {
      const results = req.messages.filter((m) => m.role === "tool").length;
      if (results === 2) return usageAnswer("ok", 1);
      const id = results === 0 ? 1 : 3;
      return usageAnswer(results === 0 ? "" : long, 1, [
        { id: `c${id}`, name: "crm__lookup", arguments: `{"id":${id}}` },
      ]);
    };
    expect(await s.run()).toBe("parked");
    expect((await s.send("set", { arguments: { id: 9 } })).ok).toBe(true);
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause).toMatchObject({ phase: "tool_call", occurrence: 2 });
    expect(s.snap.debug!.checkpoint).toBeNull();
    expect(await s.resume("continue")).toBe("terminal");
    // The first call went past its pause twice: both times with the arguments set there.
    expect(s.effects.toolCalls.map((c) => c.args)).toEqual([{ id: 9 }, { id: 9 }, { id: 3 }]);
    expect(s.effects.llmCalls).toHaveLength(5);
    expect(s.step("ask").toolCalls).toMatchObject([{ arguments: { id: 9 } }, { arguments: { id: 3 } }]);
  });

  it("over a hundred pauses in one attempt, its first call's set arguments are kept for the attempt started over", async () => {
    const calls = 102;
    const s = new Session([{ name: "ask", type: "agent", agent: "helper", prompt: "p" }], [{ type: "tool_call" }], {
      agents: [{ ...agents[0]!, max_turns: calls + 1 }],
    });
    s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
    // The answer before the last call is over a pause's share of the record: its resume starts the attempt over.
    const long = "x".repeat(s.t.committer.limits.toolCallBytes);
    s.effects.llmScript = (req) => {
      const results = req.messages.filter((m) => m.role === "tool").length;
      if (results === calls) return usageAnswer("ok", 1);
      const id = results + 1;
      return usageAnswer(id === calls ? long : "", 1, [
        { id: `c${id}`, name: "crm__lookup", arguments: `{"id":${id}}` },
      ]);
    };
    expect(await s.run()).toBe("parked");
    expect((await s.send("set", { arguments: { id: 1000 } })).ok).toBe(true);
    for (let n = 1; n < calls; n++) {
      expect(await s.resume("continue")).toBe("parked");
      expect(s.pause).toMatchObject({ phase: "tool_call", occurrence: n + 1 });
    }
    expect(s.snap.debug!.checkpoint).toBeNull();
    // Past the hundred points kept (a hundred and one resumed), none of the attempt's calls gave way (it is still
    // running): started over, the first call goes with the arguments set there, without pausing again, and each call
    // after it as before.
    expect(await s.resume("continue")).toBe("terminal");
    const sent = s.effects.toolCalls.map((c) => c.args);
    const once = Array.from({ length: calls }, (_, n) => ({ id: n === 0 ? 1000 : n + 1 }));
    expect(sent).toEqual([...once.slice(0, -1), ...once]);
  });

  it("an attempt started over that asks for another tool at a call paused at makes it a call of its own", async () => {
    const s = new Session([{ name: "ask", type: "agent", agent: "helper", prompt: "p" }], [{ type: "tool_call" }], {
      agents,
    });
    s.effects.tools = [
      { name: "lookup", description: "", inputSchema: {} },
      { name: "other", description: "", inputSchema: {} },
    ];
    // As in the test above, the second pause keeps no conversation: its resume starts the attempt over, where the model
    // now asks for `other` first.
    const long = "x".repeat(s.t.committer.limits.toolCallBytes);
    let firsts = 0;
    s.effects.llmScript = (req) => {
      const results = req.messages.filter((m) => m.role === "tool").length;
      if (results === 2) return usageAnswer("ok", 1);
      if (results === 1) return usageAnswer(long, 1, [{ id: "c3", name: "crm__lookup", arguments: '{"id":3}' }]);
      firsts += 1;
      const call = firsts === 1 ? { name: "crm__lookup", id: 1 } : { name: "crm__other", id: 5 };
      return usageAnswer("", 1, [{ id: `c${call.id}`, name: call.name, arguments: `{"id":${call.id}}` }]);
    };
    expect(await s.run()).toBe("parked");
    expect((await s.send("set", { arguments: { id: 9 } })).ok).toBe(true);
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause).toMatchObject({ phase: "tool_call", occurrence: 2 });
    expect(await s.resume("continue")).toBe("parked");
    // Not lookup's set arguments: a new call, which its breakpoint pauses at.
    expect(s.pause).toMatchObject({
      phase: "tool_call",
      occurrence: 1,
      context: { toolCall: { server: "crm", tool: "other", arguments: { id: 5 } } },
    });
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.effects.toolCalls).toEqual([
      { server: "crm", tool: "lookup", args: { id: 9 } },
      { server: "crm", tool: "other", args: { id: 5 } },
      { server: "crm", tool: "lookup", args: { id: 3 } },
    ]);
  });

  it("a call paused at that an attempt started over replaces with another tool's is done with: its command applies no more", async () => {
    const s = new Session([{ name: "ask", type: "agent", agent: "helper", prompt: "p" }], [{ type: "tool_call" }], {
      agents,
    });
    s.effects.tools = ["lookup", "other", "third"].map((name) => ({ name, description: "", inputSchema: {} }));
    // Each answer before a second call is over a pause's share of the record: a pause there starts the attempt over.
    // The attempt's first answer asks for lookup, then other, then lookup again; after other, its second call is third.
    const long = "x".repeat(s.t.committer.limits.toolCallBytes);
    const firsts = [
      { name: "crm__lookup", id: 1 },
      { name: "crm__other", id: 5 },
    ];
    let first = { name: "", id: 0 };
    s.effects.llmScript = (req) => {
      const results = req.messages.filter((m) => m.role === "tool").length;
      if (results === 2) return usageAnswer("ok", 1);
      if (results === 1) {
        const second = first.name === "crm__other" ? { name: "crm__third", id: 4 } : { name: "crm__lookup", id: 3 };
        return usageAnswer(long, 1, [{ id: `c${second.id}`, name: second.name, arguments: `{"id":${second.id}}` }]);
      }
      first = firsts.shift() ?? { name: "crm__lookup", id: 7 };
      return usageAnswer("", 1, [{ id: `c${first.id}`, name: first.name, arguments: `{"id":${first.id}}` }]);
    };
    const at = () => `${s.pause.context.toolCall!.tool} ${s.pause.occurrence}`;
    expect(await s.run()).toBe("parked");
    expect(at()).toBe("lookup 1");
    expect((await s.send("set", { arguments: { id: 9 } })).ok).toBe(true);
    expect(await s.resume("continue")).toBe("parked");
    expect(at()).toBe("lookup 2");
    // Started over: other where lookup was, and third where lookup's second call was, each a call of its own.
    expect(await s.resume("continue")).toBe("parked");
    expect(at()).toBe("other 1");
    expect(await s.resume("continue")).toBe("parked");
    expect(at()).toBe("third 2");
    // Started over again, the model asks for lookup first once more: a new call, not the one lookup's set was for, nor
    // is its second call the one paused at first.
    expect(await s.resume("continue")).toBe("parked");
    expect([at(), s.pause.context.toolCall!.arguments]).toEqual(["lookup 1", { id: 7 }]);
    expect(await s.resume("continue")).toBe("parked");
    expect(at()).toBe("lookup 2");
    // Started over at last, the attempt asks for the calls its last pauses were at: each goes as its command said.
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.effects.toolCalls.map((c) => `${c.tool} ${JSON.stringify(c.args)}`)).toEqual([
      'lookup {"id":9}',
      'other {"id":5}',
      'lookup {"id":7}',
      'lookup {"id":7}',
      'lookup {"id":3}',
    ]);
    expect(s.snap.status).toBe("COMPLETED");
    // Each command done with: none kept waiting for a call the attempt will not make.
    expect(s.snap.debug!.resumed.filter((r) => !r.passed || r.output !== undefined)).toEqual([]);
  });

  it("a call counted after a resume from a kept conversation knows the calls' tools before the pause: another tool at one, run again, is new", async () => {
    const s = new Session(
      [{ name: "ask", type: "agent", agent: "helper", prompt: "p" }],
      [
        { id: "p", type: "tool_call", tool: "lookup", hitCount: 1 },
        { id: "c", type: "tool_call", tool: "lookup", hitCount: 3 },
        { id: "t", type: "tool_call", tool: "third" },
      ],
      { agents },
    );
    s.effects.tools = ["lookup", "other", "third"].map((name) => ({ name, description: "", inputSchema: {} }));
    // The attempt asks for other, lookup (p pauses: its conversation is kept, and the resume goes on from it), lookup
    // (c's second hit, counted) and third, after an answer over a pause's share of the record: its pause keeps no
    // conversation, and its resume starts the attempt over, where the model asks for lookup first instead of other.
    const long = "x".repeat(s.t.committer.limits.toolCallBytes);
    let runs = 0;
    s.effects.llmScript = (req) => {
      const n = req.messages.filter((m) => m.role === "tool").length;
      if (n === 0) runs += 1;
      const tool = [runs === 1 ? "other" : "lookup", "lookup", "lookup", "third"][n];
      return tool === undefined
        ? usageAnswer("done", 1)
        : usageAnswer(tool === "third" ? long : "", 1, [
            { id: `c${n + 1}`, name: `crm__${tool}`, arguments: JSON.stringify({ id: n + 1 }) },
          ]);
    };
    const paused: string[] = [];
    for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
      expect(paused.length).toBeLessThan(4);
      paused.push(`${s.pause.breakpointId} ${s.pause.occurrence} ${s.pause.context.toolCall!.tool}`);
    }
    // lookup where other was is a call of its own: c's third hit, which pauses there. The calls after it were passed.
    expect(paused).toEqual(["p 2 lookup", "t 4 third", "c 1 lookup"]);
    expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { hits: { p: 3, c: 3, t: 1 }, callsPassed: [] } });
  });

  /**
   * A parallel: `a` (an after_step breakpoint, which pauses) beside an agent step `ask` whose model, once a has paused,
   * asks for `tool` (lookup in an answer over a pause's share of the record), then answers. Two tool_call breakpoints
   * hit at every call: c pauses at its first hit, d at its second.
   */
  const callWaitingBehindAPause = (tool: string) => {
    const s = new Session(
      [
        {
          name: "par",
          type: "parallel",
          branches: {
            left: [code("a")],
            right: [{ name: "ask", type: "agent", agent: "helper", prompt: "look up" }],
          },
        },
      ],
      [
        { id: "a", type: "after_step", step: "a" },
        { id: "c", type: "tool_call", hitCount: 1 },
        { id: "d", type: "tool_call", hitCount: 2 },
      ],
      { agents },
    );
    s.effects.tools = ["lookup", "other"].map((name) => ({ name, description: "", inputSchema: {} }));
    const long = "x".repeat(s.t.committer.limits.toolCallBytes);
    s.effects.llmScript = async (req) => {
      await until("a paused", () => s.snap.debug!.hits.a === 1);
      if (req.messages.some((m) => m.role === "tool")) return usageAnswer("done", 1);
      return usageAnswer(tool === "lookup" ? long : "", 1, [{ id: "c1", name: `crm__${tool}`, arguments: "{}" }]);
    };
    return s;
  };

  it("a call waiting behind a pause, its conversation not kept, that the attempt run again by a takeover replaces with another tool's is a new call: its hits count anew", async () => {
    const first = callWaitingBehindAPause("lookup");
    expect(await first.run()).toBe("parked");
    expect(first.pause.breakpointId).toBe("a");
    // lookup's call waits its turn, its hits counted (c's first, which pauses, and d's), keeping no conversation: the
    // attempt starts over when the pause is resumed.
    expect(first.snap.debug!.waiting).toEqual([
      expect.objectContaining({ stepPath: "ask", phase: "tool_call", occurrence: 1, hits: { c: 1, d: 1 } }),
    ]);
    expect(first.snap.debug!.waiting[0]!.checkpoint).toBeUndefined();
    // Taken over from the park's write, where the model asks for other instead.
    const s = callWaitingBehindAPause("other");
    s.t = s.t.resumed(structuredClone(first.snap));
    expect(await s.run()).toBe("parked");
    expect(s.pause.id).toBe(first.pause.id);
    // Not lookup's call: other's hits are c's second and d's, which pauses.
    expect(await s.resume("continue")).toBe("parked");
    const { breakpointId, occurrence, context } = s.pause;
    expect([breakpointId, occurrence, context.toolCall?.tool]).toEqual(["d", 1, "other"]);
    expect(s.snap.debug).toMatchObject({ hits: { a: 1, c: 2, d: 2 }, waiting: [] });
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.effects.toolCalls.map((c) => c.tool)).toEqual(["other"]);
    expect(s.snap.status).toBe("COMPLETED");
  });

  it("skip at a tool call gives the model the output instead of calling the tool", async () => {
    const s = new Session([{ name: "ask", type: "agent", agent: "helper", prompt: "p" }], [{ type: "tool_call" }], {
      agents,
    });
    s.effects.tools = [{ name: "lookup", description: "", inputSchema: {} }];
    s.effects.llmScript = () =>
      s.effects.llmCalls.length === 1
        ? usageAnswer("", 1, [{ id: "c1", name: "crm__lookup", arguments: "{}" }])
        : usageAnswer("ok", 1);
    await s.run();
    expect(await s.resume("skip", { output: { mocked: true } })).toBe("terminal");
    expect(s.effects.toolCalls).toHaveLength(0);
    const toolMessage = s.effects.llmCalls[1]!.messages.at(-1);
    expect(toolMessage).toEqual({
      role: "tool",
      results: [{ callId: "c1", content: '{"mocked":true}', isError: false }],
    });
  });

  it("usage pauses before the LLM call once the totals so far (plus the step's previous call) reach the threshold", async () => {
    const ask = (name: string) => ({ name, type: "llm", model: "m", prompt: name });
    const s = new Session([ask("one"), ask("two"), ask("three")], [{ type: "usage", tokens: 8 }]);
    s.effects.llmScript = () => usageAnswer("x", 4);
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({
      type: "usage",
      phase: "llm_call",
      stepPath: "three",
      occurrence: 1,
      context: { usage: { totalTokens: 8 } },
    });
    expect(s.pause.context.input).toMatchObject({ model: "m", messages: [{ role: "user", text: "three" }] });
    expect(s.effects.llmCalls).toHaveLength(2);
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.effects.llmCalls).toHaveLength(3);
    expect(s.snap.usage.totalTokens).toBe(12);
  });

  it("before an llm step, the pause shows the exact request, and a set input replaces its messages", async () => {
    const s = new Session(
      [{ name: "ask", type: "llm", model: "m", system: "be brief", prompt: "hi {{ vars.who }}" }],
      [{ type: "before_step", step: "ask" }],
      {
        vars: { who: "Ada" },
      },
    );
    await s.run();
    expect(s.pause.context.input).toEqual({
      model: "m",
      system: "be brief",
      messages: [{ role: "user", text: "hi Ada" }],
    });
    // Refused at the claim, the pause still open: an input that is not a conversation would only fail the step.
    expect(await s.send("set", { input: { messages: [{ role: "user", content: "hello" }] } })).toEqual({
      ok: false,
      reason: "invalid",
      message:
        "the input of llm step `ask` is not {system?, messages}: messages.0.text: Invalid input: expected string, received undefined",
    });
    await s.send("set", { input: { system: "be terse", messages: [{ role: "user", text: "hello" }] } });
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.effects.llmCalls[0]).toMatchObject({ system: "be terse", messages: [{ role: "user", text: "hello" }] });
  });
});

describe("commands and their claims", () => {
  it("exactly one command wins a pause; one naming a stale pause, or sent when nothing is paused, is refused", async () => {
    const s = new Session(
      [code("a"), code("b")],
      [
        { type: "before_step", step: "a" },
        { type: "before_step", step: "b" },
      ],
    );
    await s.run();
    const first = s.pause.id;
    const { store } = storeHolding(s.snap);
    const [one, two] = await Promise.all([
      claimPause(store, s.snap.id, first, { command: "continue", body: {}, by: "ada" }),
      claimPause(store, s.snap.id, first, { command: "skip", body: {}, by: "bob" }),
    ]);
    expect([one.ok, two.ok].filter(Boolean)).toHaveLength(1);
    expect([one, two].find((r) => !r.ok)).toMatchObject({ reason: "conflict" });

    await s.resume("continue");
    expect(s.pause.stepPath).toBe("b");
    expect(await s.send("continue", {}, first)).toMatchObject({ ok: false, reason: "stale" });
    await s.resume("continue");
    expect(s.snap.status).toBe("COMPLETED");
    expect(await s.send("continue")).toMatchObject({ ok: false, reason: "no_pause" });
  });

  it("a command that does not apply at the pause is refused", async () => {
    const s = new Session([code("a")], [{ type: "before_step", step: "a" }]);
    await s.run();
    expect(await s.send("retry")).toMatchObject({ ok: false, reason: "invalid" });
    expect(await s.send("set", { output: 1 })).toMatchObject({ ok: false, reason: "invalid" });
    expect(await s.send("set", {})).toMatchObject({ ok: false, reason: "invalid" });
  });

  it("a claimed command is carried out once: a second delivery finds its claim gone and changes nothing", async () => {
    const s = new Session([code("a")], [{ type: "before_step", step: "a" }]);
    await s.run();
    const { store, stored } = storeHolding(s.snap);
    const claimed = await claimPause(store, s.snap.id, undefined, { command: "continue", body: {}, by: "ada" });
    if (!claimed.ok) throw new Error(claimed.message);
    const guest = new MemoryCommitter(stored());
    expect(applyClaimedCommand(guest, claimed.claim.id, Date.now())).toBe("resume");
    expect(applyClaimedCommand(guest, claimed.claim.id, Date.now())).toBeNull();
    expect(guest.snap.debug).toMatchObject({ claimed: null, appliedClaim: claimed.claim.id, pause: null });
  });

  it("abort cancels the run as a cancel does", async () => {
    const s = new Session([code("a"), code("b")], [{ type: "after_step", step: "a" }]);
    await s.run();
    await s.send("abort");
    expect(s.applied).toBe("abort");
    expect(s.snap).toMatchObject({
      status: "CANCELLED",
      error: "execution aborted in the debugger by ada",
      currentStep: null,
    });
    expect(s.snap.debug!.pause).toBeNull();
    expect(s.effects.codeCalls).toHaveLength(1);
  });
});

describe("parallel branches", () => {
  it("a pause in one branch stops the others at their next step boundary; resumed, both finish", async () => {
    const s = new Session(
      [
        {
          name: "both",
          type: "parallel",
          branches: { left: [code("l1"), code("l2")], right: [code("r1"), code("r2")] },
        },
      ],
      [{ type: "before_step", step: "l1" }],
    );
    expect(await s.run()).toBe("parked");
    expect(s.pause.stepPath).toBe("l1");
    expect(s.snap.steps.l2).toBeUndefined();
    expect(s.snap.steps.r2).toBeUndefined();
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.snap.status).toBe("COMPLETED");
    expect(s.effects.codeCalls.map((c) => c.code)).toHaveLength(4);
  });
});

describe("deadlines while paused", () => {
  afterEach(() => vi.useRealTimers());

  it("a foreach's timeout that passes while a step inside it is paused, its wake replayed meanwhile, fails nothing", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const s = new Session(
      [
        {
          name: "loop",
          type: "foreach",
          timeout: 3,
          items: "{{ [1, 2] }}",
          steps: [{ name: "s1", type: "transform", output: "{{ item }}" }],
        },
        { name: "fin", type: "transform", output: "done" },
      ],
      [{ type: "before_step", step: "loop[0].s1" }],
    );
    expect(await s.run()).toBe("parked");
    // The foreach's wake at its deadline comes while the pause stands: the run replays and stays paused.
    vi.setSystemTime(Date.now() + 4_000);
    expect(await s.run()).toBe("parked");
    expect(s.step("loop").status).toBe("RUNNING");
    vi.setSystemTime(Date.now() + 1_000);
    expect(await s.resume("continue")).toBe("terminal");
    expect([s.snap.status, s.snap.error, s.step("fin").output]).toEqual(["COMPLETED", null, "done"]);
  });
});

describe("concurrent branches: each point pauses once", () => {
  it("woken again while paused after a branch's step, the run does not complete the parallel past the pause", async () => {
    const s = new Session(
      [{ name: "both", type: "parallel", branches: { left: [code("l1")], right: [code("r1")] } }, code("c")],
      [
        { type: "after_step", step: "l1" },
        { type: "after_step", step: "both" },
      ],
    );
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({ stepPath: "l1", phase: "after" });
    s.t = s.t.resumed();
    expect(await s.run()).toBe("parked");
    expect(s.step("both").status).toBe("RUNNING");
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "bp2", stepPath: "both", phase: "after" });
  });

  const doubling = (child: Record<string, unknown>) => [
    { name: "each", type: "foreach", items: [1, 2, 3, 4, 5], concurrency: 2, steps: [child] },
  ];

  /**
   * Answers every pause with `command` until the run ends (at most `bound` pauses); the pauses announced, as
   * `breakpoint phase path occurrence`.
   */
  async function answerAll(s: Session, command: "continue" | "skip", bound: number): Promise<string[]> {
    const announced: string[] = [];
    for (let outcome = await s.run(); ; outcome = await s.resume(command)) {
      for (const e of s.t.committer.events)
        if (e.type === "debug_paused")
          announced.push(`${e.data.breakpointId} ${e.data.phase} ${e.data.stepPath} ${e.data.occurrence}`);
      if (outcome === "terminal" || announced.length > bound) return announced;
    }
  }

  /** Three branches, each a code step `s<n>` with an after_step breakpoint, then a transform `t<n>` reading its output. */
  const threeBranches = () => {
    const branch = (n: number) => [
      code(`s${n}`),
      { name: `t${n}`, type: "transform", output: `{{ steps.s${n}.output }}` },
    ];
    const s = new Session(
      [{ name: "par", type: "parallel", branches: { b1: branch(1), b2: branch(2), b3: branch(3) } }],
      [1, 2, 3].map((n) => ({ type: "after_step" as const, step: `s${n}` })),
    );
    s.effects.code = (req) => codeOk(`${req.code} ran`);
    return s;
  };

  it("three branches with an after_step each pause in turn, each once: an output set at a pause is what its branch's next step reads", async () => {
    const s = threeBranches();
    const paused: string[] = [];
    for (let r = await s.run(); r === "parked";) {
      expect(paused.length).toBeLessThan(3);
      const { stepPath, phase, context } = s.pause;
      paused.push(`${phase} ${stepPath}`);
      // Stopped right after its step: nothing after it in the branch ran yet.
      expect(context.output).toBe("pass ran");
      expect(s.snap.steps[`t${stepPath.slice(1)}`]).toBeUndefined();
      // Woken again while paused (a takeover replays the run): it stays at this pause, writing no other.
      s.t = s.t.resumed();
      expect(await s.run()).toBe("parked");
      expect(s.pause.stepPath).toBe(stepPath);
      expect((await s.send("set", { output: `edited at ${stepPath}` })).ok).toBe(true);
      r = await s.resume("continue");
    }
    expect(paused.sort()).toEqual(["after s1", "after s2", "after s3"]);
    expect(s.snap.status).toBe("COMPLETED");
    expect(s.snap.debug!.hits).toEqual({ bp1: 1, bp2: 1, bp3: 1 });
    expect(s.snap.debug!.waiting).toEqual([]);
    expect(s.effects.codeCalls).toHaveLength(3);
    expect([1, 2, 3].map((n) => s.step(`t${n}`).output)).toEqual([1, 2, 3].map((n) => `edited at s${n}`));
  });

  it("taken over from any write the run made (a crash), branches waiting after their step still pause there, each step run once", async () => {
    // Every write of the first run, up to its first pause: what a crash at that moment leaves in the store.
    const first = threeBranches();
    const writes = everyWrite(first);
    expect(await first.run()).toBe("parked");
    expect(writes.length).toBeGreaterThan(0);
    for (const stored of writes.filter((w) => w.debug!.pause !== null)) {
      const s = threeBranches();
      s.t = s.t.resumed(stored);
      const paused: string[] = [];
      for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
        expect(paused.length).toBeLessThan(3);
        paused.push(s.pause.stepPath);
      }
      // The step the crash found completed is not run again: the three ran once between the two runs.
      const completedBefore = [1, 2, 3].filter((n) => stored.steps[`s${n}`]?.status === "COMPLETED").length;
      expect(s.effects.codeCalls).toHaveLength(3 - completedBefore);
      expect(paused.sort()).toEqual(["s1", "s2", "s3"]);
      expect(s.snap).toMatchObject({ status: "COMPLETED" });
    }
  });

  /**
   * A parallel: `a` beside a foreach of `items` (all at once), each a code step `x`, and the branches `more`, under
   * `breakpoints`. `a` completes once every x runs; each x completes once `xWaits` for its item resolves.
   */
  const aBesideEach = (
    items: number[],
    breakpoints: BreakpointInput[],
    xWaits: (item: number) => Promise<unknown>,
    more: Record<string, unknown[]> = {},
  ) => {
    const each = { name: "each", type: "foreach", items, concurrency: items.length, steps: [code("x", { code: "x" })] };
    const s = new Session(
      [{ name: "par", type: "parallel", branches: { left: [code("a", { code: "a" })], right: [each], ...more } }],
      breakpoints,
    );
    let started = () => {};
    const allStarted = new Promise<void>((resolve) => (started = resolve));
    s.effects.code = async (req) => {
      if (req.code === "a") await allStarted;
      else {
        if (s.effects.codeCalls.length === items.length + 1) started();
        await xWaits(req.item as number);
      }
      return codeOk(req.item ?? null);
    };
    return s;
  };

  /**
   * aBesideEach of 20 items: `a` with an after_step breakpoint (bp1), each `x` one (bp2) of `hitCount`; the x complete
   * once a's pause is written.
   */
  const behindAPause = (hitCount: number) => {
    let open = () => {};
    const paused = new Promise<void>((resolve) => (open = resolve));
    const items = Array.from({ length: 20 }, (_, i) => i);
    const s = aBesideEach(
      items,
      [
        { type: "after_step", step: "a" },
        { type: "after_step", step: "each[*].x", hitCount },
      ],
      () => paused,
    );
    const flush = s.t.committer.flush.bind(s.t.committer);
    s.t.committer.flush = async () => {
      await flush();
      if (s.t.committer.stored.debug!.pause) open();
    };
    return s;
  };

  it("behind another branch's pause only the hit that its hitCount pauses waits; the others go on, counted once", async () => {
    const s = behindAPause(5);
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "bp1", stepPath: "a" });
    // Every x came to its breakpoint behind a's pause: each hit counted as it came, the 5th waiting for its turn alone.
    const d = s.snap.debug!;
    expect(d.hits).toEqual({ bp1: 1, bp2: 20 });
    expect(d.waiting).toHaveLength(1);
    const fifth = d.waiting[0]!;
    expect(fifth).toMatchObject({ phase: "after", hits: { bp2: 5 } });
    // Woken again while paused: nothing is counted again, the 5th still waits.
    s.t = s.t.resumed();
    expect(await s.run()).toBe("parked");
    expect(s.snap.debug).toMatchObject({ hits: { bp1: 1, bp2: 20 }, waiting: [fifth] });
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "bp2", stepPath: fifth.stepPath, phase: "after" });
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { hits: { bp1: 1, bp2: 20 }, waiting: [] } });
    expect(s.effects.codeCalls).toHaveLength(21);
  });

  it("a breakpoint redefined while a hit it counted waits is counted anew there, in the hit's turn", async () => {
    const s = behindAPause(5);
    expect(await s.run()).toBe("parked");
    const fifth = s.snap.debug!.waiting[0]!.stepPath;
    replaceBreakpoints(
      s.snap.debug!,
      [
        { id: "bp1", type: "after_step", step: "a", enabled: true },
        { id: "bp2", type: "after_step", step: "each[*].x", hitCount: 1, enabled: true },
      ],
      "ada",
    );
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "bp2", stepPath: fifth });
    expect(s.snap.debug!.hits).toEqual({ bp1: 1, bp2: 1 });
  });

  it("taken over from any write behind the pause (a crash), each x's hit is counted once and the 5th pauses", async () => {
    const first = behindAPause(5);
    const writes = everyWrite(first);
    expect(await first.run()).toBe("parked");
    const behind = writes.filter((w) => w.debug!.pause !== null);
    expect(behind.length).toBeGreaterThan(0);
    for (const stored of behind) {
      const s = behindAPause(5);
      s.effects.code = (req) => codeOk(req.item ?? null);
      s.t = s.t.resumed(stored);
      const paused: string[] = [];
      for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
        expect(paused.length).toBeLessThan(3);
        paused.push(`${s.pause.breakpointId} ${s.pause.stepPath}`);
      }
      expect(paused.filter((p) => p.startsWith("bp2"))).toHaveLength(1);
      expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { hits: { bp1: 1, bp2: 20 }, waiting: [] } });
      // Each x ran once between the two runs: the ones the crash found completed are not run again.
      const completedBefore = Object.keys(stored.steps).filter(
        (p) => p.endsWith("].x") && stored.steps[p]!.status === "COMPLETED",
      ).length;
      expect(s.effects.codeCalls).toHaveLength(20 - completedBefore);
    }
  });

  /**
   * aBesideEach of 4 items: `a` with an after_step breakpoint (id `a`), each `x` one of its own (`x<i>` for item
   * i); the x complete behind a's pause one at a time in the order `arrival`: each once the one before it waits its
   * turn.
   */
  const arrivingIn = (arrival: number[], more: Record<string, unknown[]> = {}) => {
    const items = [0, 1, 2, 3];
    const waits = (item: number) =>
      until(`each[${item}].x waiting`, () => s.snap.debug!.waiting.some((w) => w.stepPath === `each[${item}].x`));
    const s = aBesideEach(
      items,
      [
        { id: "a", type: "after_step", step: "a" },
        ...items.map((i) => ({ id: `x${i}`, type: "after_step" as const, step: `each[${i}].x` })),
      ],
      (item) => {
        const before = arrival.indexOf(item) - 1;
        return before < 0 ? until("paused", () => s.snap.debug!.pause !== null) : waits(arrival[before]!);
      },
      more,
    );
    return s;
  };

  it("points waiting behind a pause pause in the order their branches came to them, not the order the run comes back", async () => {
    for (const arrival of orders([0, 1, 2, 3])) {
      const s = arrivingIn(arrival);
      expect(await s.run()).toBe("parked");
      expect(s.pause).toMatchObject({ breakpointId: "a", stepPath: "a" });
      // Listed in the order the branches came, which is the order the pauses come in: one at a time.
      expect(s.snap.debug!.waiting.map((w) => w.stepPath)).toEqual(arrival.map((i) => `each[${i}].x`));
      const paused: string[] = [];
      for (let r = await s.resume("continue"); r === "parked"; r = await s.resume("continue")) {
        expect(paused.length).toBeLessThan(4);
        // The pause is at the first point listed as waiting before it, and the others still wait in their order.
        paused.push(s.pause.stepPath);
        const rest = arrival.slice(paused.length).map((i) => `each[${i}].x`);
        expect(s.snap.debug!.waiting.map((w) => w.stepPath)).toEqual(rest);
        // Woken again while paused: the same pause, the others still waiting.
        s.t = s.t.resumed();
        expect(await s.run()).toBe("parked");
        expect(s.pause.stepPath).toBe(paused.at(-1));
      }
      expect(paused, `arrival ${arrival.join(", ")}`).toEqual(arrival.map((i) => `each[${i}].x`));
      expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { waiting: [] } });
      expect(s.effects.codeCalls).toHaveLength(5);
    }
  });

  it("taken over from any write of a run resumed from a pause (a crash), the waiting points pause in the order they came", async () => {
    const arrival = [3, 1, 2, 0];
    const order = arrival.map((i) => `each[${i}].x`);
    const first = arrivingIn(arrival);
    expect(await first.run()).toBe("parked");
    const writes = await writesOfContinues(first);
    expect(writes.length).toBeGreaterThan(arrival.length);
    for (const stored of writes) {
      const s = arrivingIn(arrival);
      s.t = s.t.resumed(stored);
      // Those already paused at (each once) come before, in the order they came.
      const before = stored.debug!.resumed.map((r) => r.stepPath).filter((p) => p !== "a");
      expect(await pausesTakenOverFrom(s, stored, before, 4)).toEqual(order);
      expect(s.snap.status).toBe("COMPLETED");
    }
  });

  it("a waiting point whose breakpoint is removed or disabled while the pause stands holds no one back", async () => {
    for (const change of ["removed", "disabled"] as const) {
      const arrival = [2, 3, 0, 1];
      const s = arrivingIn(arrival);
      expect(await s.run()).toBe("parked");
      const d = s.snap.debug!;
      const next = d.breakpoints.flatMap((bp) => {
        if (bp.id !== "x2") return [bp];
        return change === "removed" ? [] : [{ ...bp, enabled: false }];
      });
      replaceBreakpoints(d, next, "ada");
      // The first that came (item 2) goes on in its turn without pausing; the next that came pauses first.
      const paused: string[] = [];
      for (let r = await s.resume("continue"); r === "parked"; r = await s.resume("continue")) {
        expect(paused.length).toBeLessThan(3);
        paused.push(s.pause.stepPath);
      }
      expect(paused, change).toEqual([3, 0, 1].map((i) => `each[${i}].x`));
      expect(s.snap.status).toBe("COMPLETED");
    }
  });

  it("breakpoints another branch's write takes up while a point is judged: the point is judged on them as they stand", async () => {
    // b, beside a, stops before its step at breakpoint `b`; the change: `b` removed, redefined to match nowhere, or so
    // redefined beside a new `n` on b.
    const changes: [string, BreakpointInput[], string[]][] = [
      ["removed", [], []],
      ["redefined", [{ id: "b", type: "before_step", step: "z" }], []],
      [
        "redefined beside a new one",
        [
          { id: "b", type: "before_step", step: "z" },
          { id: "n", type: "before_step", step: "b" },
        ],
        ["n b"],
      ],
    ];
    const seen = new Set<string>();
    for (const [what, next, after] of changes)
      for (let nth = 0; nth < 3; nth++)
        for (let ticks = 0; ticks < 30; ticks++) {
          const s = new Session(
            [{ name: "par", type: "parallel", branches: { left: [code("a")], right: [code("b")] } }],
            [{ id: "b", type: "before_step", step: "b" }],
          );
          // The run's `nth` write finds the record changed `ticks` turns later (a lost compare-and-set), and takes the
          // change up there: b's point may be judged by then (its pause set), or not reached, or in its decision.
          const committer = s.t.committer;
          let writes = 0;
          let judged: boolean | undefined;
          committer.flush = async () => {
            if (writes++ !== nth) return;
            for (let t = 0; t < ticks; t++) await Promise.resolve();
            const theirs = structuredClone(committer.snap.debug!);
            replaceBreakpoints(theirs, withBreakpointIds(next.map((b) => Breakpoint.parse(b))), "ada");
            judged = committer.snap.debug!.pause?.stepPath === "b";
            adoptBreakpoints(committer.snap.debug!, theirs);
          };
          const paused: string[] = [];
          for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
            expect(paused.length).toBeLessThan(2);
            paused.push(`${s.pause.breakpointId} ${s.pause.stepPath}`);
          }
          const where = `${what}, write ${nth} taken ${ticks} ticks late`;
          if (judged === undefined) continue;
          seen.add(`${judged}`);
          // Judged before the change: b paused; else on the list as changed, its hit of `b` not counted.
          expect(paused, where).toEqual(judged ? ["b b"] : after);
          if (!judged) expect(s.snap.debug!.hits.b, where).toBeUndefined();
          expect(s.snap.status, where).toBe("COMPLETED");
        }
    // The sweep lands the change both before and after b's point was judged.
    expect([...seen].sort()).toEqual(["false", "true"]);
  });

  it("breakpoints another branch's write takes up while a point behind a pause is counted: it waits on them as they stand", async () => {
    // b completes behind a's pause, its hit of `b` (or the change of the watch `w` it makes) counted as it comes,
    // beside c, whose completion's write takes the change up: `b` removed, redefined to match nowhere, or so redefined
    // beside a new `n` after b; `w` redefined to watch what does not change. Whenever the change comes, b pauses only
    // at `n`, in its turn.
    const a: BreakpointInput = { id: "a", type: "after_step", step: "a" };
    const b: BreakpointInput = { id: "b", type: "after_step", step: "b" };
    const nowhere: BreakpointInput = { id: "b", type: "after_step", step: "z" };
    const changes: [string, BreakpointInput[], BreakpointInput[], string[]][] = [
      ["removed", [a, b], [a], []],
      ["redefined", [a, b], [a, nowhere], []],
      ["redefined beside a new one", [a, b], [a, nowhere, { id: "n", type: "after_step", step: "b" }], ["n b"]],
      [
        "a watch redefined",
        [a, { id: "w", type: "watch", expression: "steps.b.output" }],
        [a, { id: "w", type: "watch", expression: "steps.c.output" }],
        [],
      ],
    ];
    for (const [what, before, next, after] of changes)
      for (let nth = 0; nth < 6; nth++)
        for (let ticks = 0; ticks < 30; ticks++) {
          const branches = { left: [code("a", { code: "a" })], right: [code("b", { code: "b" })], third: [code("c")] };
          const s = new Session([{ name: "par", type: "parallel", branches }], before);
          // b and c complete as a's pause is set, not waiting for the event loop: c's writes come as b's is judged.
          s.effects.code = async (req) => {
            if (req.code !== "a") await until("a paused", () => s.snap.debug!.pause !== null, true);
            return codeOk(req.code === "b" ? 1 : null);
          };
          const committer = s.t.committer;
          let writes = 0;
          let changed = false;
          committer.flush = async () => {
            if (writes++ !== nth) return;
            for (let t = 0; t < ticks; t++) await Promise.resolve();
            const theirs = structuredClone(committer.snap.debug!);
            replaceBreakpoints(theirs, withBreakpointIds(next.map((bp) => Breakpoint.parse(bp))), "ada");
            adoptBreakpoints(committer.snap.debug!, theirs);
            changed = true;
          };
          const paused: string[] = [];
          for (let r = await s.run(); r === "parked"; r = await s.resume("continue")) {
            expect(paused.length).toBeLessThan(3);
            paused.push(`${s.pause.breakpointId} ${s.pause.stepPath}`);
          }
          if (!changed) continue;
          const where = `${what}, write ${nth} taken ${ticks} ticks late`;
          expect(paused, where).toEqual(["a a", ...after]);
          if (what.startsWith("redefined")) expect(s.snap.debug!.hits.b, where).toBeUndefined();
          expect(s.snap.status, where).toBe("COMPLETED");
        }
  });

  it("a point that came first but whose redefined breakpoint does not pause holds the others back until the run passes it", async () => {
    const arrival = [3, 2, 0, 1];
    const s = arrivingIn(arrival);
    expect(await s.run()).toBe("parked");
    const d = s.snap.debug!;
    // Counted anew in its turn, its hit is x3's first: not its second, so it goes on. The run comes back to it last.
    replaceBreakpoints(
      d,
      d.breakpoints.map((bp) => (bp.id === "x3" ? { ...bp, hitCount: 2 } : bp)),
      "ada",
    );
    const paused: string[] = [];
    for (let r = await s.resume("continue"); r === "parked"; r = await s.resume("continue")) {
      expect(paused.length).toBeLessThan(3);
      paused.push(s.pause.stepPath);
    }
    expect(paused).toEqual([2, 0, 1].map((i) => `each[${i}].x`));
    expect(s.snap).toMatchObject({ status: "COMPLETED", debug: { hits: { x3: 1 }, waiting: [] } });
  });

  it("a wait's timer that woke the run early is armed again once, however many passes the run makes", async () => {
    const s = arrivingIn([3, 2, 0, 1], { slow: [{ name: "nap", type: "wait", seconds: 3600 }] });
    expect(await s.run()).toBe("parked");
    const d = s.snap.debug!;
    // x3 came first but goes on in its turn, which the run comes to last: a second pass pauses at x2.
    replaceBreakpoints(
      d,
      d.breakpoints.map((bp) => (bp.id === "x3" ? { ...bp, hitCount: 2 } : bp)),
      "ada",
    );
    expect(s.effects.wakes.filter((w) => w.path === "nap")).toHaveLength(1);
    // The wake comes from nap's timer, early: the run arms it again.
    s.effects.wokenFor = "nap";
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause.stepPath).toBe("each[2].x");
    const due = s.step("nap").waitUntil;
    // Two timers in all: the one its wait armed, and the one the early wake armed again; not one per pass.
    expect(s.effects.wakes.filter((w) => w.path === "nap")).toEqual([
      { path: "nap", dueAt: due },
      { path: "nap", dueAt: due },
    ]);
  });

  /**
   * A parallel: a pauses (after_step); behind its pause b1 and c complete, `first` first, after `lead` steps before c:
   * b stops before b2 (a before_step breakpoint there), or b1 fails (`failing`: an on_error one), and c waits its turn.
   * Whatever the arrival, the pauses after a's.
   */
  function listedAheadOfB(first: string, lead: number, failing: boolean): Session {
    const leading = Array.from({ length: lead }, (_, i) => code(`c${i}`, { code: `c${i}` }));
    const s = new Session(
      [
        {
          name: "par",
          type: "parallel",
          branches: {
            left: [code("a", { code: "a" })],
            middle: [code("b1", { code: "b1" }), code("b2", { code: "b2" })],
            right: [...leading, code("c", { code: "c" })],
          },
        },
      ],
      [
        { id: "a", type: "after_step", step: "a" },
        failing ? { id: "b", type: "on_error", step: "b1" } : { id: "b", type: "before_step", step: "b2" },
        { id: "c", type: "after_step", step: "c" },
      ],
    );
    const started = (step: string) => s.effects.codeCalls.some((c) => c.code === step);
    // Completed, or its failure held.
    const done = (step: string) =>
      s.snap.steps[step]?.status === "COMPLETED" || s.snap.debug!.held.some((h) => h.stepPath === step);
    s.effects.code = async (req) => {
      if (req.code === "a") await until("b1 and c started", () => started("b1") && started("c"));
      else if (req.code === "b1" || req.code === "c") {
        await until("paused", () => s.snap.debug!.pause !== null);
        if (req.code !== first) await until(`${first} done`, () => done(first));
      }
      return failing && req.code === "b1" ? codeFailed("b1 broke") : codeOk(null);
    };
    return s;
  }

  async function pausesBehindTheListed(first: string, lead: number, failing: boolean): Promise<string[]> {
    const s = listedAheadOfB(first, lead, failing);
    expect(await s.run()).toBe("parked");
    expect(s.pause.stepPath).toBe("a");
    expect(s.snap.steps.b2).toBeUndefined();
    // What the console lists: c alone waits its turn; b, stopped at a boundary, is not listed, its failure held.
    const listed = waitingPoints(s.snap);
    expect(listed.waiting.map((w) => w.stepPath)).toEqual(["c"]);
    expect(listed.held.map((h) => h.stepPath)).toEqual(failing ? ["b1"] : []);
    const paused: string[] = [];
    for (let r = await s.resume("continue"); r === "parked"; r = await s.resume("continue")) {
      expect(paused.length).toBeLessThan(2);
      paused.push(`${s.pause.breakpointId} ${s.pause.stepPath}`);
    }
    expect(s.snap).toMatchObject({ status: failing ? "FAILED" : "COMPLETED", debug: { waiting: [], held: [] } });
    return paused;
  }

  it("a branch stopped at a boundary behind a pause pauses there after the points listed as waiting", async () => {
    // Whichever of b1 and c completes first, and however many steps before c the run passes over to come back to it.
    for (const first of ["b1", "c"])
      for (const lead of [0, 1, 2])
        expect(await pausesBehindTheListed(first, lead, false), `${first} first, ${lead} before c`).toEqual([
          "c c",
          "b b2",
        ]);
  });

  it("taken over from any write of the resumed runs (a crash), b still pauses after the listed point", async () => {
    for (const failing of [false, true]) {
      const first = listedAheadOfB("b1", 1, failing);
      expect(await first.run()).toBe("parked");
      const writes = await writesOfContinues(first);
      expect(writes.length).toBeGreaterThan(2);
      for (const stored of writes) {
        const s = listedAheadOfB("b1", 1, failing);
        s.t = s.t.resumed(stored);
        // Those already paused at (each once) come before, in the order they came.
        const before = stored.debug!.resumed.map((r) => r.stepPath);
        expect(await pausesTakenOverFrom(s, stored, before, 3)).toEqual(["a", "c", failing ? "b1" : "b2"]);
      }
    }
  });

  /**
   * A parallel: a pauses (after_step); behind its pause b fails (`behind`: once a's pause stands; else at once), its
   * failure held, with an on_error breakpoint there, while c's steps go on (each completed one written).
   */
  function failureHeldBehindA(behind: boolean): Session {
    const s = new Session(
      [
        {
          name: "par",
          type: "parallel",
          branches: {
            left: [code("a", { code: "a" })],
            middle: [code("b", { code: "b" })],
            right: [code("c1", { code: "c1" }), code("c2", { code: "c2" }), code("c3", { code: "c3" })],
          },
        },
      ],
      [
        { id: "a", type: "after_step", step: "a" },
        // Its first hit pauses: one counted again by a takeover would not.
        { id: "b", type: "on_error", step: "b", hitCount: 1 },
      ],
    );
    s.effects.code = async (req) => {
      if (req.code === "a") await until("b started", () => s.effects.codeCalls.some((c) => c.code === "b"));
      else if (req.code === "b" && behind) await until("paused", () => s.snap.debug!.pause !== null);
      return req.code === "b" ? codeFailed("b broke") : codeOk(null);
    };
    return s;
  }

  it("taken over from any write of the run resumed (a crash), a held failure pauses at its on_error, not run again", async () => {
    const first = failureHeldBehindA(true);
    expect(await first.run()).toBe("parked");
    expect(first.pause.stepPath).toBe("a");
    expect(first.snap.debug!.held.map((h) => h.stepPath)).toEqual(["b"]);
    expect((await first.send("continue")).ok).toBe(true);
    const writes = everyWrite(first);
    expect(await first.run()).toBe("parked");
    expect(first.pause).toMatchObject({ stepPath: "b", phase: "error", occurrence: 1 });
    expect(first.effects.codeCalls.filter((c) => c.code === "b")).toHaveLength(1);
    expect(writes.length).toBeGreaterThan(1);
    for (const stored of writes) {
      const s = failureHeldBehindA(false);
      s.t = s.t.resumed(stored);
      // Found held, or paused at: its attempt is not run again, and its pause comes there (or stands already).
      expect(await s.run()).toBe("parked");
      expect(s.effects.codeCalls.filter((c) => c.code === "b")).toHaveLength(0);
      expect(s.pause).toMatchObject({
        stepPath: "b",
        phase: "error",
        occurrence: 1,
        context: { error: "step `b`: b broke" },
      });
      expect(s.step("b").attempts).toBe(1);
    }
  });

  it("taken over from any write of the run a held failure's continue wakes (a crash), it fails, not run again", async () => {
    const first = failureHeldBehindA(true);
    expect(await first.run()).toBe("parked");
    expect(await first.resume("continue")).toBe("parked");
    expect(first.pause).toMatchObject({ stepPath: "b", phase: "error" });
    expect((await first.send("continue")).ok).toBe(true);
    const writes = everyWrite(first);
    expect(await first.run()).toBe("terminal");
    expect(first.snap.status).toBe("FAILED");
    expect(writes.length).toBeGreaterThan(1);
    for (const stored of writes) {
      const s = failureHeldBehindA(false);
      s.t = s.t.resumed(stored);
      expect(await s.run()).toBe("terminal");
      expect(s.effects.codeCalls.filter((c) => c.code === "b")).toHaveLength(0);
      expect(s.snap.status).toBe("FAILED");
      expect(s.step("b")).toMatchObject({ status: "FAILED", attempts: 1, error: "step `b`: b broke" });
    }
  });

  /**
   * Every write of the session's run from now on, as the store took it; its `nth` (from 0) takes the record `ticks`
   * turns of the microtask queue after it was asked for, as a store's write takes it once the events ahead of it are
   * acknowledged, while the other branches go on: swept over both, a write lands at every point of another branch's
   * decision.
   */
  function lateWrite(s: Session, nth: number, ticks: number): ExecutionSnapshot[] {
    const writes: ExecutionSnapshot[] = [];
    const committer = s.t.committer;
    let calls = 0;
    committer.flush = async () => {
      if (calls++ === nth) for (let t = 0; t < ticks; t++) await Promise.resolve();
      writes.push(structuredClone(committer.snap));
    };
    return writes;
  }

  /**
   * A parallel: a pauses (after_step); behind its pause (`behind`; else at once) b comes to the breakpoint `b`: it
   * waits after its step, stops before it (c, before it, completing behind the pause), or fails (its first two
   * attempts, of three).
   */
  function bBehindA(b: BreakpointInput, behind: boolean): Session {
    const fails = b.type === "on_error";
    const retry = { max_attempts: 3, backoff: "fixed", initial_delay: 0.001 };
    const right = [code("b", { code: "b", ...(fails ? { retry } : {}) })];
    if (b.type === "before_step") right.unshift(code("c", { code: "c" }));
    const s = new Session(
      [{ name: "par", type: "parallel", branches: { left: [code("a", { code: "a" })], right } }],
      [
        { id: "a", type: "after_step", step: "a" },
        { id: "b", ...b },
      ],
    );
    let first = behind;
    s.effects.code = async (req) => {
      if (req.code === right[0]!.code && first) {
        first = false;
        await until("paused", () => s.snap.debug!.pause !== null);
      }
      return req.code === "b" && fails && s.step("b").attempts <= 2 ? codeFailed("b broke") : codeOk(null);
    };
    return s;
  }

  it("taken over from a write landing anywhere in the run resumed (a crash), b pauses once where its hit is, counted once", async () => {
    const cases: [BreakpointInput, Partial<PauseRecord>, number][] = [
      // Waiting its turn after its step: judged once a's pause is over.
      [{ type: "after_step", step: "b" }, { phase: "after", occurrence: 0 }, 1],
      // Stopped at its boundary: judged there once a's pause is over.
      [{ type: "before_step", step: "b" }, { phase: "before", occurrence: 0 }, 1],
      // Its failure held: its first hit pauses there; or, counted there without pausing, its retry's failure pauses.
      [{ type: "on_error", step: "b", hitCount: 1 }, { phase: "error", occurrence: 1 }, 1],
      [{ type: "on_error", step: "b", hitCount: 2 }, { phase: "error", occurrence: 2 }, 2],
    ];
    for (const [breakpoint, at, hits] of cases)
      for (let nth = 0; nth < 3; nth++)
        for (let ticks = 0; ticks < 20; ticks++) {
          const first = bBehindA(breakpoint, true);
          expect(await first.run()).toBe("parked");
          expect(first.pause.stepPath).toBe("a");
          expect((await first.send("continue")).ok).toBe(true);
          const writes = lateWrite(first, nth, ticks);
          expect(await first.run()).toBe("parked");
          expect(first.pause).toMatchObject({ stepPath: "b", ...at });
          for (const stored of writes) {
            const s = bBehindA(breakpoint, false);
            s.t = s.t.resumed(stored);
            const where = `${breakpoint.type} ${breakpoint.hitCount ?? 1}, write ${nth} taken ${ticks} ticks late`;
            expect(await s.run(), where).toBe("parked");
            expect(s.pause, where).toMatchObject({ breakpointId: "b", stepPath: "b", ...at });
            expect(s.snap.debug!.hits, where).toEqual({ a: 1, b: hits });
            // Once: nothing pauses after it.
            expect(await s.resume("continue"), where).toBe("terminal");
            expect(s.snap.status).toBe("COMPLETED");
          }
        }
  });

  it("a breakpoint redefined while a failure's hit it counted is held is counted anew there, by a takeover", async () => {
    const breakpoint: BreakpointInput = { type: "on_error", step: "b", hitCount: 2 };
    // A write of the run resumed that finds b's first failure judged, its hit numbered, its retry not recorded yet.
    let stored: ExecutionSnapshot | undefined;
    for (let ticks = 0; !stored; ticks++) {
      expect(ticks).toBeLessThan(20);
      const first = bBehindA(breakpoint, true);
      expect(await first.run()).toBe("parked");
      expect((await first.send("continue")).ok).toBe(true);
      const writes = lateWrite(first, 0, ticks);
      expect(await first.run()).toBe("parked");
      stored = writes.find((w) => w.debug!.held[0]?.hits);
    }
    expect(stored.debug!.held).toMatchObject([{ stepPath: "b", occurrence: 1, hits: { b: 1 } }]);
    const [a, b] = stored.debug!.breakpoints;
    replaceBreakpoints(stored.debug!, [a!, { ...b!, hitCount: 1 }], "ada");
    const s = bBehindA(breakpoint, false);
    s.t = s.t.resumed(stored);
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "b", stepPath: "b", phase: "error", occurrence: 1 });
    expect(s.snap.debug!.hits).toEqual({ a: 1, b: 1 });
    expect(s.effects.codeCalls).toHaveLength(0);
  });

  it("taken over from a write landing anywhere (a crash), a boundary's hit that did not pause is not counted again", async () => {
    /** `a` beside a foreach of two items, one at a time, each a step x: the second hit of `breakpoint` pauses. */
    const make = (breakpoint: BreakpointInput) =>
      new Session(
        [
          {
            name: "par",
            type: "parallel",
            branches: {
              left: [code("a")],
              right: [{ name: "each", type: "foreach", items: [0, 1], concurrency: 1, steps: [code("x")] }],
            },
          },
        ],
        [{ id: "b", ...breakpoint, hitCount: 2 }],
      );
    const cases: [BreakpointInput, Partial<PauseRecord>][] = [
      [
        { type: "before_step", step: "each[*].x" },
        { stepPath: "each[1].x", phase: "before" },
      ],
      [
        { type: "foreach_item", step: "each" },
        { stepPath: "each", phase: "item", occurrence: 1 },
      ],
    ];
    for (const [breakpoint, at] of cases)
      for (let nth = 0; nth < 3; nth++)
        for (let ticks = 0; ticks < 30; ticks++) {
          const first = make(breakpoint);
          const writes = lateWrite(first, nth, ticks);
          expect(await first.run()).toBe("parked");
          expect(first.pause).toMatchObject(at);
          for (const stored of writes) {
            const s = make(breakpoint);
            s.t = s.t.resumed(stored);
            const where = `${breakpoint.type}, write ${nth} taken ${ticks} ticks late`;
            expect(await s.run(), where).toBe("parked");
            expect(s.pause, where).toMatchObject({ breakpointId: "b", ...at });
            expect(s.snap.debug!.hits, where).toEqual({ b: 2 });
            // Each is let go with the state that records the run past it.
            expect(s.snap.debug!.boundariesPassing, where).toEqual([]);
          }
        }
  });

  it("a failure held behind a pause pauses at its on_error after the points listed as waiting", async () => {
    for (const first of ["b1", "c"])
      for (const lead of [0, 1, 2])
        expect(await pausesBehindTheListed(first, lead, true), `${first} first, ${lead} before c`).toEqual([
          "c c",
          "b b1",
        ]);
  });

  /**
   * A pauses once the others run; loop[0].x then completes behind the pause, b after it; loop[1].x runs on until its
   * foreach times out, which ends the foreach's attempt with loop[0].x waiting in it: `retry` backs off for an hour.
   */
  async function timedOutBehindThePause(retry?: Record<string, unknown>): Promise<Session> {
    const loop = { name: "loop", type: "foreach", items: [0, 1], concurrency: 2, timeout: 0.5, steps: [code("x")] };
    const s = new Session(
      [
        {
          name: "par",
          type: "parallel",
          branches: {
            left: [code("a", { code: "a" })],
            mid: [retry ? { ...loop, retry } : loop],
            right: [code("b", { code: "b" })],
          },
        },
      ],
      [
        { id: "a", type: "after_step", step: "a" },
        { id: "e", type: "after_step", step: "loop[0].x" },
        { id: "p", type: "after_step", step: "b" },
      ],
    );
    const waiting = (path: string) => () => s.snap.debug!.waiting.some((w) => w.stepPath === path);
    s.effects.code = async (req, signal) => {
      if (req.code === "a") await until("all started", () => s.effects.codeCalls.length === 4);
      else if (req.code === "b") await until("loop[0].x waiting", waiting("loop[0].x"));
      else if (req.item === 0) await until("paused", () => s.snap.debug!.pause !== null);
      else return untilAborted(signal);
      return codeOk(req.code);
    };
    const writes = everyWrite(s);
    expect(await s.run()).toBe("parked");
    expect(s.pause.stepPath).toBe("a");
    // A takeover from a write that records the foreach's attempt ended finds none of its points waiting.
    for (const w of writes.filter((w) => w.steps.loop?.status === "FAILED" || w.steps.loop?.retryAt))
      expect(w.debug!.waiting.map((p) => p.stepPath)).not.toContain("loop[0].x");
    return s;
  }

  /** The points the record (as the park writes it) and the console's list hold as waiting their turn. */
  function listedWaiting(s: Session): { record: string[]; listed: string[] } {
    return {
      record: s.snap.debug!.waiting.map((w) => w.stepPath),
      listed: waitingPoints(s.snap).waiting.map((w) => w.stepPath),
    };
  }

  it("a point that came first in a container that timed out behind the pause leaves the list with the timeout", async () => {
    const s = await timedOutBehindThePause();
    expect(s.step("loop")).toMatchObject({ status: "FAILED", error: expect.stringContaining("timed out") });
    expect(listedWaiting(s)).toEqual({ record: ["b"], listed: ["b"] });
    // b came after loop[0].x, whose turn never comes: b pauses, and the foreach's failure then ends the run.
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "p", stepPath: "b" });
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.snap.status).toBe("FAILED");
  });

  it("a point in a container's attempt that timed out behind the pause, its retry backing off, leaves the list", async () => {
    const s = await timedOutBehindThePause({ max_attempts: 2, backoff: "fixed", initial_delay: 3600 });
    expect(s.step("loop")).toMatchObject({ status: "RUNNING", attempts: 1, retryAt: expect.any(Number) });
    expect(listedWaiting(s)).toEqual({ record: ["b"], listed: ["b"] });
    expect(await s.resume("continue")).toBe("parked");
    expect(s.pause).toMatchObject({ breakpointId: "p", stepPath: "b" });
  });

  it("a failure held in a container that timed out behind the pause leaves the held list", async () => {
    const s = new Session(
      [
        {
          name: "par",
          type: "parallel",
          branches: {
            left: [code("a", { code: "a" })],
            mid: [{ name: "loop", type: "foreach", items: [0, 1], concurrency: 2, timeout: 0.5, steps: [code("x")] }],
          },
        },
      ],
      [{ id: "a", type: "after_step", step: "a" }],
    );
    // a pauses once both items run; item 0 then fails behind the pause (held), item 1 runs on until the timeout.
    s.effects.code = async (req, signal) => {
      if (req.code === "a") await until("all started", () => s.effects.codeCalls.length === 3);
      else if (req.item === 0) {
        await until("paused", () => s.snap.debug!.pause !== null);
        return codeFailed("boom");
      } else return untilAborted(signal);
      return codeOk(req.code);
    };
    expect(await s.run()).toBe("parked");
    expect(s.pause.stepPath).toBe("a");
    expect(s.step("loop")).toMatchObject({ status: "FAILED", error: expect.stringContaining("timed out") });
    expect({ record: s.snap.debug!.held, listed: waitingPoints(s.snap).held }).toEqual({ record: [], listed: [] });
    expect(await s.resume("continue")).toBe("terminal");
    expect(s.snap.status).toBe("FAILED");
  });

  it("abort at a pause while other branches wait after their steps cancels the run; none of them pauses", async () => {
    const s = threeBranches();
    expect(await s.run()).toBe("parked");
    const waiting = s.snap.debug!.waiting.map((w) => `${w.phase} ${w.stepPath}`);
    expect([`${s.pause.phase} ${s.pause.stepPath}`, ...waiting].sort()).toEqual(["after s1", "after s2", "after s3"]);
    await s.send("abort");
    expect(s.snap).toMatchObject({ status: "CANCELLED", error: "execution aborted in the debugger by ada" });
    expect(s.snap.debug).toMatchObject({ pause: null, waiting: [] });
    expect(s.t.committer.events.filter((e) => e.type === "debug_paused")).toEqual([]);
    expect(s.effects.codeCalls).toHaveLength(3);
  });

  it("a foreach of concurrency 2 with a foreach_item and a before_step breakpoint: Continue until the end pauses 6 times, once at each point", async () => {
    const s = new Session(doubling({ name: "double", type: "transform", output: "{{ item * 2 }}" }), [
      { type: "foreach_item", step: "each", index: 2 },
      { type: "before_step", step: "each[*].double" },
    ]);
    const announced = await answerAll(s, "continue", 6);
    expect(announced.sort()).toEqual([
      "bp1 item each 2",
      ...[0, 1, 2, 3, 4].map((i) => `bp2 before each[${i}].double 0`),
    ]);
    expect(s.snap).toMatchObject({ status: "COMPLETED", output: [2, 4, 6, 8, 10] });
    expect(s.snap.debug!.hits).toEqual({ bp1: 1, bp2: 5 });
  });

  it("a failure in one item while another item is paused waits at its failure: on_error pauses at each, and skips rescue all", async () => {
    const s = new Session(
      [{ name: "each", type: "foreach", items: [1, 2, 3, 4], concurrency: 4, steps: [code("x")] }],
      [{ type: "on_error", step: "each[*].x" }],
    );
    s.effects.code = () => codeFailed("boom");
    const announced = await answerAll(s, "skip", 4);
    expect(announced.sort()).toEqual([0, 1, 2, 3].map((i) => `bp1 error each[${i}].x 1`));
    expect(s.effects.codeCalls).toHaveLength(4);
    expect([0, 1, 2, 3].map((i) => s.step(`each[${i}].x`).status)).toEqual(Array(4).fill("SKIPPED"));
    expect(s.snap.status).toBe("COMPLETED");
  });

  it("a branch's failure with no breakpoint waits too: the pause is kept, replays do not run the step again, and once resumed the failure ends the run", async () => {
    const s = new Session(
      [{ name: "both", type: "parallel", branches: { left: [code("l1")], right: [code("r1")] } }],
      [{ type: "on_error", step: "l1" }],
    );
    s.effects.code = (req) => codeFailed(`${req.code} failed`);
    expect(await s.run()).toBe("parked");
    expect(s.pause).toMatchObject({ stepPath: "l1", phase: "error" });
    expect(s.snap.debug!.held).toMatchObject([{ stepPath: "r1", occurrence: 1, error: "step `r1`: pass failed" }]);
    expect(s.snap.status).toBe("RUNNING");
    // Woken while still paused (a takeover replays the run): neither failed step runs again.
    s.t = s.t.resumed();
    expect(await s.run()).toBe("parked");
    expect(s.effects.codeCalls).toHaveLength(2);
    expect(await s.resume("skip")).toBe("terminal");
    expect(s.effects.codeCalls).toHaveLength(2);
    expect(s.snap.debug!.held).toEqual([]);
    expect(s.snap).toMatchObject({ status: "FAILED" });
    expect(s.step("l1").status).toBe("SKIPPED");
    expect(s.step("r1")).toMatchObject({ status: "FAILED", error: expect.stringContaining("failed") });
  });

  it("a container whose branch failed waits for the pause in its other branch: that pause's continue, skip or retry is carried out", async () => {
    const outcomes: Record<string, unknown> = {};
    for (const command of ["continue", "skip", "retry"] as const) {
      const s = new Session(
        [
          {
            name: "par",
            type: "parallel",
            branches: { b1: [code("f1")], b2: [code("f2"), { name: "f3", type: "transform", output: 3 }] },
          },
        ],
        [
          { type: "on_error", step: "f1" },
          { type: "on_error", step: "f2" },
        ],
      );
      s.effects.code = () => (s.effects.codeCalls.length <= 2 ? codeFailed("boom") : codeOk("fixed"));
      expect(await s.run()).toBe("parked");
      expect(s.pause.stepPath).toBe("f1");
      // f1 fails; par does not, while f2's failure waits at its pause.
      expect(await s.resume("continue")).toBe("parked");
      expect([s.pause.stepPath, s.step("f1").status, s.step("par").status]).toEqual(["f2", "FAILED", "RUNNING"]);
      await s.resume(command);
      outcomes[command] = [s.snap.status, s.step("f2").status, s.snap.steps.f3?.status ?? null];
    }
    expect(outcomes).toEqual({
      continue: ["FAILED", "FAILED", null],
      skip: ["FAILED", "SKIPPED", "COMPLETED"],
      retry: ["FAILED", "COMPLETED", "COMPLETED"],
    });
  });

  it("a skip is carried out where it was given, though another item paused before the run came back there", async () => {
    const s = new Session(doubling(code("double")), [{ type: "before_step", step: "each[*].double" }]);
    expect(await answerAll(s, "skip", 5)).toHaveLength(5);
    expect(s.effects.codeCalls).toHaveLength(0);
    expect([0, 1, 2, 3, 4].map((i) => s.step(`each[${i}].double`).status)).toEqual(Array(5).fill("SKIPPED"));
    expect(s.snap.status).toBe("COMPLETED");
  });

  it("a new attempt of a foreach passes its steps anew: a point paused at in the failed attempt pauses again", async () => {
    const s = new Session(
      [
        {
          name: "loop",
          type: "foreach",
          items: [1, 2],
          retry: { max_attempts: 2, backoff: "fixed", initial_delay: 0.001 },
          steps: [code("x")],
        },
      ],
      [{ type: "before_step", step: "loop[0].x" }],
    );
    s.effects.code = () => (s.effects.codeCalls.length === 1 ? codeFailed("first") : codeOk("ok"));
    expect(await answerAll(s, "continue", 2)).toEqual(["bp1 before loop[0].x 0", "bp1 before loop[0].x 0"]);
    expect(s.step("loop")).toMatchObject({ status: "COMPLETED", attempts: 2, output: ["ok", "ok"] });
  });
});

describe("the idle timeout", () => {
  it("is due idleTimeout after the pause, or after the last edit at it, and its error names the duration", async () => {
    const s = new Session([code("a")], [{ type: "before_step", step: "a" }], { idleTimeout: 90 });
    await s.run();
    const pausedAt = s.pause.pausedAt;
    expect(idleDue(s.snap.debug!)).toBe(pausedAt + 90_000);
    await s.send("set", { vars: { k: 1 } });
    const editedAt = s.snap.debug!.edits[0]!.at;
    expect(idleDue(s.snap.debug!)).toBe(editedAt + 90_000);
    expect(idleError(s.snap.debug!)).toBe("debug session idle for 90s");
    expect([formatIdle(3600), formatIdle(120), formatIdle(5400), formatIdle(45)]).toEqual(["1h", "2m", "90m", "45s"]);
  });
});
