import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StepState } from "@wf/shared/execution";
import { MAX_EXECUTION_FAN_OUT, MAX_FOREACH_CONCURRENCY, MAX_PARALLEL_BRANCHES } from "@wf/shared/workflow";
import { jsonOf } from "../code/json-text";
import {
  FakeEffects,
  RunUnderTest,
  answer,
  codeFailed,
  codeOk,
  snapshotOf,
  untilAborted,
  workflowOf,
} from "./fake-run";

function start(steps: unknown[], vars: Record<string, unknown> = {}): RunUnderTest {
  const workflow = workflowOf({ name: "t", steps });
  return new RunUnderTest(workflow, new FakeEffects(), snapshotOf(workflow, vars));
}

function code(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, type: "code", language: "python", code: "pass", ...extra };
}

function stateOf(t: RunUnderTest, path: string): StepState {
  const st = t.snap.steps[path];
  if (!st) throw new Error(`no state recorded for \`${path}\``);
  return st;
}

/**
 * What a crash right after the latest of `effects`' `act` (of those `when` picks) would find: the steps `run`'s
 * committer had stored by then, and how many code steps had run.
 */
function storedWhen<K extends "startChild" | "scheduleWake" | "openApproval">(
  effects: FakeEffects,
  run: RunUnderTest,
  act: K,
  when: (...args: Parameters<FakeEffects[K]>) => boolean = () => true,
): { steps?: Record<string, StepState>; ran?: number } {
  const seen: { steps?: Record<string, StepState>; ran?: number } = {};
  const done = effects[act].bind(effects) as (...args: Parameters<FakeEffects[K]>) => ReturnType<FakeEffects[K]>;
  effects[act] = ((...args: Parameters<FakeEffects[K]>) => {
    if (when(...args)) {
      seen.steps = structuredClone(run.committer.stored.steps);
      seen.ran = effects.codeCalls.length;
    }
    return done(...args);
  }) as FakeEffects[K];
  return seen;
}

/** Moves the clock on, as the time a parked execution waits goes by (Date only: timers keep real time). */
function later(ms: number): void {
  if (!vi.isFakeTimers()) vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true, advanceTimeDelta: 1 });
  vi.setSystemTime(Date.now() + ms);
}

afterEach(() => {
  vi.useRealTimers();
});

/**
 * Code steps that wait until `bound` of them run at once, and a while after for any more to start (as one past a bound
 * would), then all end: `most` says how many ran at once.
 */
function holdAtOnce(bound: number): { code: FakeEffects["code"]; most: () => number } {
  let running = 0;
  let most = 0;
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    code: async () => {
      most = Math.max(most, ++running);
      if (running === bound) setTimeout(open, 50);
      await gate;
      running -= 1;
      return codeOk(null);
    },
    most: () => most,
  };
}

describe("a sequence of steps", () => {
  it("runs the steps in order, each seeing the outputs before it; the last output is the execution's", async () => {
    const t = start(
      [
        code("a", { input: { n: "{{ vars.n }}" } }),
        { name: "b", type: "transform", output: { got: "{{ steps.a.output }}" } },
      ],
      { n: 4 },
    );
    t.effects.code = (req) => codeOk((req.input as { n: number }).n * 2);
    expect(await t.run.run()).toBe("terminal");
    expect(t.snap.status).toBe("COMPLETED");
    expect(t.effects.codeCalls.map((req) => req.input)).toEqual([{ n: 4 }]);
    expect(t.snap.output).toEqual({ got: 8 });
    expect(t.snap.completedSteps).toBe(2);
    expect(t.committer.eventsOf("a")).toEqual(["step_started", "step_completed"]);
  });
});

describe("a step's output as the JSON text its runner wrote", () => {
  const output = { rows: [{ id: 1, note: "has s3cr3t-value in it" }] };
  // Spaced as no JSON.stringify writes it: what a later step is sent shows which text it was.
  const text = '{ "rows": [{ "id": 1, "note": "has s3cr3t-value in it" }] }';
  const masked = { rows: [{ id: 1, note: "has *** in it" }] };
  const passOn = [
    code("a", { language: "javascript" }),
    code("b", { language: "javascript", input: "{{ steps.a.output }}" }),
  ];

  /**
   * Answers the first code step with `output` and its text, the others with 1, calling `before` first; returns the
   * JSON each step's runner is sent as its input, taken as the runner connection takes it, at the call.
   */
  function answer(t: RunUnderTest, before: () => void = () => undefined): string[] {
    const sent: string[] = [];
    t.effects.code = (req) => {
      before();
      sent.push(jsonOf(req.input));
      return sent.length === 1 ? { ...codeOk(structuredClone(output)), outputJson: text } : codeOk(1);
    };
    return sent;
  }

  it("goes on as that text to a step taking it whole, and is recorded as its value", async () => {
    const t = start(passOn);
    const sent = answer(t);
    expect(await t.run.run()).toBe("terminal");
    expect(t.snap.status).toBe("COMPLETED");
    expect(sent[1]).toBe(text);
    expect(stateOf(t, "a").output).toEqual(output);
  });

  it("goes on as its masked value where it holds a secret the run knows, never as the text holding it", async () => {
    const t = start(passOn);
    t.committer.masker.add(["s3cr3t-value"]);
    const sent = answer(t);
    expect(await t.run.run()).toBe("terminal");
    expect(t.effects.codeCalls[1]!.input).toEqual(masked);
    expect(sent[1]).toBe(JSON.stringify(masked));
    expect(stateOf(t, "a").output).toEqual(masked);
  });

  it("goes on as that text where the run knows secrets it does not hold", async () => {
    const t = start(passOn);
    t.committer.masker.add(["another-secret"]);
    const sent = answer(t);
    expect(await t.run.run()).toBe("terminal");
    expect(sent[1]).toBe(text);
  });

  it("goes on as its masked value once a later step's masking rewrote it", async () => {
    // b records its input (monitoring): the masking of that input, the same value as a's output, rewrites it.
    const t = start([...passOn, code("c", { language: "javascript", input: "{{ steps.a.output }}" })]);
    t.snap.enableMonitoring = true;
    const sent = answer(t, () => {
      if (t.effects.codeCalls.length === 2) t.committer.masker.add(["s3cr3t-value"]);
    });
    expect(await t.run.run()).toBe("terminal");
    expect(sent.slice(1)).toEqual([text, JSON.stringify(masked)]);
    expect(t.effects.codeCalls[2]!.input).toEqual(masked);
  });
});

describe("what is written when", () => {
  /** The stored steps' statuses at each code step's call: what a crash at that moment would leave. */
  function storedAtEachCall(t: RunUnderTest): Record<string, string>[] {
    const stored: Record<string, string>[] = [];
    t.effects.code = () => {
      stored.push(Object.fromEntries(Object.entries(t.committer.stored.steps).map(([path, st]) => [path, st.status])));
      return codeOk(1);
    };
    return stored;
  }

  it("pure steps (JavaScript, TypeScript, transforms) write nothing of their own; a Python step's start is written before it runs", async () => {
    const t = start([
      code("a", { language: "javascript" }),
      { name: "t", type: "transform", output: 1 },
      code("b", { language: "typescript" }),
      code("c"),
    ]);
    const stored = storedAtEachCall(t);
    expect(await t.run.run()).toBe("terminal");
    expect(stored).toEqual([{}, {}, { a: "COMPLETED", t: "COMPLETED", b: "COMPLETED", c: "RUNNING" }]);
  });

  it("a step that acted outside has its result written before a pure step runs, and before the next outside step only by that one's start", async () => {
    const t = start([
      code("a"),
      code("b"),
      code("c", { language: "javascript" }),
      code("d", { language: "javascript" }),
      code("e", { condition: "true" }),
      code("f", { language: "javascript" }),
    ]);
    const stored = storedAtEachCall(t);
    expect(await t.run.run()).toBe("terminal");
    expect(stored).toEqual([
      { a: "RUNNING" },
      { a: "COMPLETED", b: "RUNNING" },
      { a: "COMPLETED", b: "COMPLETED" },
      { a: "COMPLETED", b: "COMPLETED" },
      { a: "COMPLETED", b: "COMPLETED", c: "COMPLETED", d: "COMPLETED", e: "RUNNING" },
      { a: "COMPLETED", b: "COMPLETED", c: "COMPLETED", d: "COMPLETED", e: "COMPLETED" },
    ]);
  });

  it("a run of pure steps is written once its oldest change has waited long enough, so that progress shows", async () => {
    const t = start([1, 2, 3].map((n) => code(`js${n}`, { language: "javascript" })));
    const stored = storedAtEachCall(t);
    t.committer.unwrittenMs = 10_000;
    expect(await t.run.run()).toBe("terminal");
    expect(stored).toEqual([{}, { js1: "COMPLETED" }, { js1: "COMPLETED", js2: "COMPLETED" }]);
    // The last one's result goes in the end write.
    expect(t.committer.flushes).toBe(2);
  });

  it("a wait of the workflow's sequence that parks is written by the park alone; any other is written first", async () => {
    const parks = start([{ name: "nap", type: "wait", seconds: 60 }]);
    expect(await parks.run.run()).toBe("parked");
    expect(parks.committer.flushes).toBe(0);
    expect(parks.committer.eventsOf("nap")).toEqual(["step_started", "step_waiting"]);
    // In a branch, beside steps that may run on past its due time.
    const branch = start([
      { name: "par", type: "parallel", branches: { a: [{ name: "nap", type: "wait", seconds: 60 }] } },
    ]);
    expect(await branch.run.run()).toBe("parked");
    expect(branch.committer.flushes).toBe(1);
    expect(branch.committer.stored.steps.nap?.waitUntil).toEqual(expect.any(Number));
    const held = start([{ name: "short", type: "wait", seconds: 0.01 }]);
    expect(await held.run.run()).toBe("terminal");
    expect(held.committer.flushes).toBe(1);
    expect(held.committer.stored.steps.short?.waitUntil).toEqual(expect.any(Number));
  });

  it("a gate writes its approval's id with the result before it; its resume passing over that step writes nothing", async () => {
    const t = start([
      code("a"),
      { name: "g", type: "transform", output: 1, manual_approval: { message: "ok?", timeout: 60 } },
    ]);
    expect(await t.run.run()).toBe("parked");
    // a's start, then its result with g's approval id, before the approval is opened (the park's write is the actor's).
    expect(t.committer.flushes).toBe(2);
    expect(t.committer.stored.steps.a?.status).toBe("COMPLETED");
    expect(t.committer.stored.steps.g?.approvalId).toBe(t.effects.openedApprovals[0]);
    t.effects.decide("APPROVED", { decidedBy: "ann" });
    const resumed = t.resumed();
    expect(await resumed.run.run()).toBe("terminal");
    // Nothing acts outside before the end write, which takes the hold along.
    expect(resumed.committer.flushes).toBe(0);
  });

  it("a sub-workflow step writes its child's id with the result before it, and only then starts the child", async () => {
    const t = start([code("a"), { name: "call", type: "workflow", workflow: "other" }]);
    const atStart = storedWhen(t.effects, t, "startChild");
    expect(await t.run.run()).toBe("parked");
    // a's start, then its result with the child's id (the park's write is the actor's).
    expect(t.committer.flushes).toBe(2);
    expect(atStart.steps).toMatchObject({
      a: { status: "COMPLETED" },
      call: { status: "RUNNING", childExecutionId: t.effects.startedChildren[0]!.childId },
    });
  });

  it("a foreach item's last result from outside is carried by a sub-workflow step's child-id write after it", async () => {
    const call = { name: "call", type: "workflow", workflow: "other" };
    // The shape; the Python step whose result the child's id goes with; the `workflow` step; the run's writes (before:
    // one more, that result written on its own first).
    for (const [shape, last, called, writes] of [
      // After the foreach: the last item's result, left to what follows the container. Two Python starts (the second
      // with the first's result), then the child's id.
      [[{ name: "each", type: "foreach", items: [1, 2], steps: [code("py")] }, call], "each[1].py", "call", 3],
      // The next item's first step: the item before ended with a Python step (the first item skips the call).
      [
        [{ name: "each", type: "foreach", items: [1, 2], steps: [{ ...call, condition: "item > 1" }, code("py")] }],
        "each[0].py",
        "each[1].call",
        2,
      ],
    ] as const) {
      const t = start([...shape]);
      const atStart = storedWhen(t.effects, t, "startChild");
      expect(await t.run.run()).toBe("parked");
      expect(t.committer.flushes).toBe(writes);
      expect(atStart.steps).toMatchObject({
        [last]: { status: "COMPLETED" },
        [called]: { status: "RUNNING", childExecutionId: t.effects.startedChildren[0]!.childId },
      });
    }
  });

  it("a sub-workflow step replayed with its child's id writes a result owed to it before it starts that child again", async () => {
    const t = start([
      {
        name: "each",
        type: "foreach",
        items: [1, 2],
        steps: [{ name: "call", type: "workflow", workflow: "other" }, code("py")],
      },
    ]);
    expect(await t.run.run()).toBe("parked");
    const [first, second] = t.effects.startedChildren;
    Object.assign(t.effects.executions.get(first!.childId)!, { status: "COMPLETED", output: 1 });
    // The second child still running: item 0's Python step runs, and its result waits for the park's write, nothing
    // being started or armed in between. Before, it was written on its own first.
    const parks = t.resumed();
    expect(await parks.run.run()).toBe("parked");
    expect(parks.committer.flushes).toBe(1);
    expect(parks.committer.stored.steps["each[0].py"]?.status).toBe("RUNNING");
    expect(parks.snap.steps["each[0].py"]?.status).toBe("COMPLETED");
    // The second child's start never published (a crash between its id's write and its start): the result is written
    // before the same child is started again.
    t.effects.executions.delete(second!.childId);
    const starts = t.resumed();
    const atStart = storedWhen(t.effects, starts, "startChild");
    expect(await starts.run.run()).toBe("parked");
    expect(t.effects.startedChildren.slice(2)).toEqual([expect.objectContaining({ childId: second!.childId })]);
    expect(atStart.steps).toMatchObject({ "each[0].py": { status: "COMPLETED" } });
    expect(starts.committer.flushes).toBe(2);
  });

  it("a sub-workflow step replayed by its deadline's early wake writes a result owed to it before re-arming that", async () => {
    const call = { name: "call", type: "workflow", workflow: "other", timeout: 600 };
    const t = start([{ name: "each", type: "foreach", items: [1, 2], steps: [call, code("py")] }]);
    expect(await t.run.run()).toBe("parked");
    Object.assign(t.effects.executions.get(t.effects.startedChildren[0]!.childId)!, { status: "COMPLETED", output: 1 });
    t.effects.wokenFor = "each[1].call";
    const woken = t.resumed();
    const atWake = storedWhen(t.effects, woken, "scheduleWake");
    expect(await woken.run.run()).toBe("parked");
    expect(t.effects.wakes.at(-1)).toEqual({ path: "each[1].call", dueAt: stateOf(t, "each[1].call").deadline });
    expect(atWake.steps).toMatchObject({ "each[0].py": { status: "COMPLETED" } });
  });

  it("a sub-workflow start put off, replayed by its timer's early wake, writes a result owed to it before re-arming", async () => {
    const t = start([
      {
        name: "each",
        type: "foreach",
        items: [1, 2],
        steps: [{ name: "call", type: "workflow", workflow: "other" }, code("py")],
      },
    ]);
    // The second item's child is put off by the owner's budget, past what is waited in memory.
    const startChild = t.effects.startChild.bind(t.effects);
    t.effects.startChild = (workflowId, childId, path, ...rest) =>
      path === "each[1].call" && t.snap.steps[path]?.waitUntil === null
        ? Promise.resolve({ kind: "throttled", until: Date.now() + 60_000 })
        : startChild(workflowId, childId, path, ...rest);
    expect(await t.run.run()).toBe("parked");
    expect(stateOf(t, "each[1].call").waitUntil).toEqual(expect.any(Number));
    Object.assign(t.effects.executions.get(t.effects.startedChildren[0]!.childId)!, { status: "COMPLETED", output: 1 });
    // Replayed by the first child's end: item 0's Python step runs, and item 1's start, still put off, parks again
    // arming nothing. The park's write carries the result (before, it was written on its own first).
    const byChild = t.resumed();
    expect(await byChild.run.run()).toBe("parked");
    expect(t.effects.wakes).toHaveLength(1);
    expect(byChild.committer.flushes).toBe(1);
    expect(byChild.committer.stored.steps["each[0].py"]?.status).toBe("RUNNING");
    t.effects.wokenFor = "each[1].call";
    const woken = t.resumed();
    const atWake = storedWhen(t.effects, woken, "scheduleWake");
    expect(await woken.run.run()).toBe("parked");
    expect(atWake.steps).toMatchObject({ "each[0].py": { status: "COMPLETED" } });
    expect(woken.committer.flushes).toBe(2);
  });

  it("a wait after a step that acted outside has that result written before the wait's timer is armed", async () => {
    const t = start([code("a"), { name: "nap", type: "wait", seconds: 60 }]);
    const atWake = storedWhen(t.effects, t, "scheduleWake");
    expect(await t.run.run()).toBe("parked");
    // Left to the park's write, a's result would follow the timer: a crash between the two finds a in flight, run
    // again (or the execution INTERRUPTED) after it ended.
    expect(t.committer.flushes).toBe(2);
    expect(atWake.steps).toEqual({ a: expect.objectContaining({ status: "COMPLETED" }) });
  });

  it("a container parking with a branch's last result from outside left to it has that written before its deadline's timer", async () => {
    const t = start([
      {
        name: "par",
        type: "parallel",
        timeout: 600,
        branches: { a: [{ name: "nap", type: "wait", seconds: 60 }], b: [code("py")] },
      },
    ]);
    // py ends once branch a has parked: its worker is the last, and leaves its result to what follows it.
    t.effects.code = async () => {
      await vi.waitFor(() => expect(t.committer.stored.steps.nap?.waitUntil).toEqual(expect.any(Number)));
      // What branch a's worker does after that write (it ends) is done before the next turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      return codeOk(1);
    };
    const atDeadline = storedWhen(t.effects, t, "scheduleWake", (path) => path === "par");
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.wakes.map((w) => w.path)).toEqual(["nap", "par"]);
    // Left to the park's write, py's result would follow the timer: a crash between the two finds py in flight after
    // it ended.
    expect(atDeadline.steps).toMatchObject({ py: { status: "COMPLETED" } });
  });

  it("a container failing with a branch's last result from outside left to it has that written before its retry's timer", async () => {
    const t = start([
      {
        name: "par",
        type: "parallel",
        retry: { max_attempts: 2, backoff: "fixed", initial_delay: 60 },
        branches: { a: [code("bad", { language: "javascript" })], b: [code("py")] },
      },
    ]);
    // py ends once branch a has failed: its worker is the last, and leaves its result to what follows it.
    t.effects.code = async (req) => {
      if (req.language === "javascript") return codeFailed("no");
      await vi.waitFor(() => expect(t.committer.eventsOf("bad")).toContain("step_failed"));
      await new Promise((resolve) => setImmediate(resolve));
      return codeOk(1);
    };
    const atRetry = storedWhen(t.effects, t, "scheduleWake");
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.wakes.map((w) => w.path)).toEqual(["par"]);
    expect(atRetry.steps).toMatchObject({ py: { status: "COMPLETED" } });
  });

  it("a gate replayed with its approval's id writes a result owed to it before it puts an approval its crash lost", async () => {
    const gate = { name: "g", type: "transform", output: 1, manual_approval: { message: "ok?", timeout: 60 } };
    const t = start([{ name: "each", type: "foreach", items: [1, 2], steps: [gate, code("py")] }]);
    expect(await t.run.run()).toBe("parked");
    const [first, second] = t.effects.openedApprovals;
    Object.assign(t.effects.approvals.get(first!)!, { status: "APPROVED", decidedAt: Date.now(), decidedBy: "ann" });
    // A crash between the write of the second gate's id and its approval's put.
    t.effects.approvals.delete(second!);
    const resumed = t.resumed();
    const atOpen = storedWhen(t.effects, resumed, "openApproval");
    expect(await resumed.run.run()).toBe("parked");
    expect(t.effects.openedApprovals.slice(2)).toEqual([second]);
    expect(atOpen.steps).toMatchObject({ "each[0].py": { status: "COMPLETED" } });
  });

  it("a backoff replayed by its timer's early wake writes a result owed to it before re-arming that", async () => {
    const retry = { max_attempts: 2, backoff: "fixed", initial_delay: 60 };
    const t = start([
      {
        name: "each",
        type: "foreach",
        items: [1, 2],
        steps: [{ name: "nap", type: "wait", seconds: 30, condition: "item < 2" }, code("py", { retry })],
      },
    ]);
    // Item 0 parks on its wait; item 1's Python step fails and backs off, parked too.
    t.effects.code = () => (t.effects.codeCalls.length === 1 ? codeFailed("boom") : codeOk(1));
    expect(await t.run.run()).toBe("parked");
    const stored = t.snap;
    later(31_000);
    /** A replay of `stored`, item 0's wait due: its Python step ends, its result owed, before item 1 is reached. */
    const replay = async (wokenFor: string): Promise<{ run: RunUnderTest; atWake?: Record<string, StepState> }> => {
      t.effects.wokenFor = wokenFor;
      const run = t.resumed(stored);
      const scheduleWake = FakeEffects.prototype.scheduleWake.bind(t.effects);
      const out: { run: RunUnderTest; atWake?: Record<string, StepState> } = { run };
      t.effects.scheduleWake = (path, dueAt) => {
        if (path === "each[1].py") out.atWake = structuredClone(run.committer.stored.steps);
        return scheduleWake(path, dueAt);
      };
      expect(await run.run.run()).toBe("parked");
      expect(run.snap.steps["each[0].py"]?.status).toBe("COMPLETED");
      return out;
    };
    // Woken by item 0's wait: the backoff arms nothing, and the park's write carries the result (py's start alone
    // written before it).
    const byNap = await replay("each[0].nap");
    expect(byNap.atWake).toBeUndefined();
    expect(byNap.run.committer.flushes).toBe(1);
    // Woken early by the backoff's timer: armed again, after the result is written. Before, the park's write carried
    // it, and a crash between the two found py in flight after it ended.
    const early = await replay("each[1].py");
    expect(early.atWake).toMatchObject({ "each[0].py": { status: "COMPLETED" } });
    expect(early.run.committer.flushes).toBe(2);
  });

  it("a container failing with a result from outside owed to what follows it writes that before it cancels a child", async () => {
    const t = start([
      {
        name: "par",
        type: "parallel",
        branches: {
          a: [{ name: "call", type: "workflow", workflow: "other" }],
          b: [code("bad", { language: "javascript" })],
          c: [code("py")],
        },
      },
    ]);
    // py ends once branch a has parked on its child and branch b has failed: its worker is the last, and leaves its
    // result to what follows the parallel.
    t.effects.code = async (req) => {
      if (req.language === "javascript") return codeFailed("no");
      await vi.waitFor(() => {
        expect(t.effects.startedChildren).toHaveLength(1);
        expect(t.committer.eventsOf("bad")).toContain("step_failed");
      });
      await new Promise((resolve) => setImmediate(resolve));
      return codeOk(1);
    };
    let atCancel: Record<string, StepState> | undefined;
    t.effects.cancelChild = (id) => {
      atCancel = structuredClone(t.committer.stored.steps);
      t.effects.cancelledChildren.push(id);
    };
    expect(await t.run.run()).toBe("terminal");
    expect(t.snap.status).toBe("FAILED");
    expect(t.effects.cancelledChildren).toEqual([t.effects.startedChildren[0]!.childId]);
    // Left to the end's write, py's result would follow the child's cancel: a crash between the two finds py in
    // flight after it ended. The child's step is still RUNNING in that write: its cancel comes after it.
    expect(atCancel).toMatchObject({ py: { status: "COMPLETED" }, call: { status: "RUNNING" } });
  });

  it("a result left to the next step's start write is written first by a timer another branch arms meanwhile", async () => {
    const t = start([
      {
        name: "par",
        type: "parallel",
        branches: {
          // py2's input is rendered by an expression host before its start write: the other branch runs meanwhile.
          a: [code("py1"), code("py2", { input: "{{ $string(steps.py1.output) }}" })],
          b: [code("js", { language: "javascript" }), { name: "nap", type: "wait", seconds: 60 }],
        },
      },
    ]);
    t.effects.code = async (req) => {
      if (req.language !== "javascript") return codeOk(1);
      // Until py1 has ended, in microtasks alone: py2's rendering, off this thread, cannot end in between.
      for (let i = 0; t.snap.steps.py1?.status !== "COMPLETED"; i++) {
        if (i > 100_000) throw new Error("py1 did not end");
        await Promise.resolve();
      }
      return codeOk(1);
    };
    const atWake = storedWhen(t.effects, t, "scheduleWake");
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.codeCalls.map((req) => req.input)).toEqual([{}, {}, "1"]);
    // The timer was armed after py1 and js ran, before py2 did.
    expect(atWake.ran).toBe(2);
    // Before, py1's result was not owed (left to py2's start write): the timer was armed before any write carried it.
    expect(atWake.steps).toMatchObject({ py1: { status: "COMPLETED" } });
  });

  it("a result left to the next step's first write is owed: a step recorded already that acts first writes it", async () => {
    // A record no run is known to write (the step after a's is recorded only by a write carrying a's result): a's
    // result is left to call's child-id write, which a call recorded with its child's id does not make.
    const first = start([code("a"), { name: "call", type: "workflow", workflow: "other" }]);
    const recorded = structuredClone(first.snap);
    recorded.steps.call = {
      ...{ name: "call", type: "workflow", status: "RUNNING", error: null, attempts: 1, startedAt: Date.now() },
      ...{ completedAt: null, duration: null, waitUntil: null, retryAt: null, deadline: null, approvalId: null },
      childExecutionId: "lost",
    };
    const t = first.resumed(recorded);
    const atStart = storedWhen(t.effects, t, "startChild");
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.startedChildren.map((c) => c.childId)).toEqual(["lost"]);
    expect(atStart.steps).toMatchObject({ a: { status: "COMPLETED" } });
  });

  it("a wait begun by its own timer's wake (a crash before its park's write) arms one timer, not two", async () => {
    const t = start([{ name: "nap", type: "wait", seconds: 60 }]);
    t.effects.wokenFor = "nap";
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.wakes).toEqual([{ path: "nap", dueAt: stateOf(t, "nap").waitUntil }]);
  });

  it("the workflow's last step, outside or pure, leaves its result to the end write that follows it", async () => {
    const t = start([code("a"), code("b")]);
    const stored = storedAtEachCall(t);
    expect(await t.run.run()).toBe("terminal");
    expect(stored).toEqual([{ a: "RUNNING" }, { a: "COMPLETED", b: "RUNNING" }]);
    // The two start writes: what a crash before the end write leaves is b RUNNING, as before its result.
    expect(t.committer.flushes).toBe(2);
    expect(t.committer.stored.steps.b?.status).toBe("RUNNING");
    expect(t.snap).toMatchObject({ status: "COMPLETED", output: 1 });
  });

  it("a container's last result from outside goes with what follows the container: here the end write", async () => {
    // A parallel's branches run at its own prefix.
    for (const [container, inner] of [
      [{ name: "c", type: "foreach", items: [1], steps: [code("inner")] }, "c[0].inner"],
      [{ name: "c", type: "parallel", branches: { a: [code("inner")] } }, "inner"],
    ] as const) {
      const t = start([container]);
      const stored = storedAtEachCall(t);
      expect(await t.run.run()).toBe("terminal");
      expect(stored).toEqual([{ c: "RUNNING", [inner]: "RUNNING" }]);
      // Nothing runs between the result and the end write that records it.
      expect(t.committer.flushes).toBe(1);
      expect(t.committer.stored.steps[inner]?.status).toBe("RUNNING");
      expect(t.snap.steps[inner]?.status).toBe("COMPLETED");
    }
  });

  it("a foreach item's last result from outside is written by the next item's start, or before a pure step runs", async () => {
    const t = start([
      { name: "each", type: "foreach", items: [1, 2, 3], steps: [code("py")] },
      { name: "mixed", type: "foreach", items: [1, 2], steps: [code("js", { language: "javascript" }), code("py2")] },
    ]);
    const stored = storedAtEachCall(t);
    expect(await t.run.run()).toBe("terminal");
    expect(stored.slice(0, 3)).toEqual([
      { each: "RUNNING", "each[0].py": "RUNNING" },
      { each: "RUNNING", "each[0].py": "COMPLETED", "each[1].py": "RUNNING" },
      { each: "RUNNING", "each[0].py": "COMPLETED", "each[1].py": "COMPLETED", "each[2].py": "RUNNING" },
    ]);
    // The last item's, as its worker stopped.
    expect(stored[3]).toMatchObject({ "each[2].py": "COMPLETED" });
    expect(stored[4]).toMatchObject({ "mixed[0].js": "COMPLETED", "mixed[0].py2": "RUNNING" });
    // The next item begins with a pure step: the result is written before it runs.
    expect(stored[5]).toMatchObject({ "mixed[0].py2": "COMPLETED", "mixed[1].js": "RUNNING" });
    expect(stored[6]).toMatchObject({ "mixed[1].js": "COMPLETED", "mixed[1].py2": "RUNNING" });
    // The workflow's last: left to the end write.
    expect(t.committer.stored.steps["mixed[1].py2"]?.status).toBe("RUNNING");
    // Three item starts, the third's result before the pure step after it, the second foreach's two starts and its
    // pure step's.
    expect(t.committer.flushes).toBe(7);
  });

  it("a foreach item's last result waits for no other item's long step: its worker, finding no item left, writes it", async () => {
    let release = (): void => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const t = start([{ name: "each", type: "foreach", items: ["slow", "quick"], concurrency: 2, steps: [code("py")] }]);
    t.effects.code = async (req) => {
      if (req.item === "slow") await slow;
      return codeOk(1);
    };
    const ran = t.run.run();
    await vi.waitFor(() => expect(t.committer.stored.steps["each[1].py"]?.status).toBe("COMPLETED"));
    expect(t.committer.stored.steps["each[0].py"]?.status).toBe("RUNNING");
    release();
    expect(await ran).toBe("terminal");
  });

  it("a branch's last result from outside is written as it ends beside a running branch; the last one's by the next step's start", async () => {
    let release = (): void => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const t = start([
      { name: "par", type: "parallel", branches: { a: [code("quick")], b: [code("slow", { code: "slow" })] } },
      code("after"),
    ]);
    t.effects.code = async (req) => {
      if (req.code === "slow") await slow;
      return codeOk(1);
    };
    const ran = t.run.run();
    // The quick branch's result waits for no other branch's long step.
    await vi.waitFor(() => expect(t.committer.stored.steps.quick?.status).toBe("COMPLETED"));
    expect(t.committer.stored.steps.slow?.status).toBe("RUNNING");
    const before = t.committer.flushes;
    release();
    expect(await ran).toBe("terminal");
    // The slow branch's result is carried by the next step's start: one write, not two.
    expect(t.committer.flushes - before).toBe(1);
    expect(t.committer.stored.steps).toMatchObject({ slow: { status: "COMPLETED" }, after: { status: "RUNNING" } });
  });

  it("a nested foreach's last result, left to its branch, waits for no other branch's long step either", async () => {
    let release = (): void => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const t = start([
      {
        name: "par",
        type: "parallel",
        branches: {
          a: [{ name: "each", type: "foreach", items: [1, 2], steps: [code("py")] }],
          b: [code("slow", { code: "slow" })],
        },
      },
    ]);
    t.effects.code = async (req) => {
      if (req.code === "slow") await slow;
      return codeOk(1);
    };
    const ran = t.run.run();
    await vi.waitFor(() => expect(t.committer.stored.steps["each[1].py"]?.status).toBe("COMPLETED"));
    expect(t.committer.stored.steps.slow?.status).toBe("RUNNING");
    release();
    expect(await ran).toBe("terminal");
  });

  it("a branch's last result is written before a pure step after the parallel, or a condition's skip, runs", async () => {
    const t = start(
      [
        { name: "par", type: "parallel", branches: { a: [code("py")] } },
        { name: "skipped", type: "transform", output: 1, condition: "vars.off" },
        code("js", { language: "javascript" }),
        code("last"),
      ],
      { off: false },
    );
    const stored = storedAtEachCall(t);
    expect(await t.run.run()).toBe("terminal");
    expect(stored).toEqual([
      { par: "RUNNING", py: "RUNNING" },
      { par: "COMPLETED", py: "COMPLETED", skipped: "SKIPPED", js: "RUNNING" },
      { par: "COMPLETED", py: "COMPLETED", skipped: "SKIPPED", js: "COMPLETED", last: "RUNNING" },
    ]);
    // The branch's start, its result before the pure step, the last step's start.
    expect(t.committer.flushes).toBe(3);
  });
});

describe("conditions", () => {
  it("a step whose condition is false is skipped without running; one whose condition is true runs", async () => {
    const t = start([code("no", { condition: "vars.off" }), code("yes", { condition: "vars.on" })], {
      off: false,
      on: true,
    });
    await t.run.run();
    expect(stateOf(t, "no").status).toBe("SKIPPED");
    expect(t.committer.events.find((e) => e.step === "no")).toMatchObject({
      type: "step_skipped",
      data: { reason: "condition" },
    });
    expect(stateOf(t, "yes").status).toBe("COMPLETED");
    expect(t.effects.codeCalls).toHaveLength(1);
    expect(t.snap.status).toBe("COMPLETED");
  });

  it("a condition that cannot be evaluated fails its step, naming it, and nothing after it runs", async () => {
    const t = start([code("bad", { condition: "vars.(" }), code("after")]);
    await t.run.run();
    expect(stateOf(t, "bad").status).toBe("FAILED");
    expect(stateOf(t, "bad").error).toMatch(/^step `bad`: expression `vars\.\(` failed/);
    expect(t.snap.steps.after).toBeUndefined();
    expect(t.effects.codeCalls).toHaveLength(0);
    expect(t.snap.status).toBe("FAILED");
  });
});

describe("retries", () => {
  it("a failed attempt is retried after its backoff until one passes, the attempts counted", async () => {
    const t = start([code("flaky", { retry: { max_attempts: 3, backoff: "fixed", initial_delay: 0.005 } })]);
    t.effects.code = () =>
      t.effects.codeCalls.length < 3 ? codeFailed(`boom ${t.effects.codeCalls.length}`) : codeOk("third");
    await t.run.run();
    const st = stateOf(t, "flaky");
    expect(st.status).toBe("COMPLETED");
    expect(st.attempts).toBe(3);
    expect(st.output).toBe("third");
    expect(t.committer.eventsOf("flaky")).toEqual([
      "step_started",
      "step_retrying",
      "step_started",
      "step_retrying",
      "step_started",
      "step_completed",
    ]);
    const retrying = t.committer.events.filter((e) => e.type === "step_retrying");
    expect(retrying.map((e) => [e.data.attempt, e.data.error])).toEqual([
      [1, "step `flaky`: boom 1"],
      [2, "step `flaky`: boom 2"],
    ]);
    // Even a short backoff has its durable timer, should the process die while it waits.
    expect(t.effects.wakes.map((w) => w.dueAt)).toEqual(retrying.map((e) => e.data.retryAt));
  });

  it("a backoff of the workflow's sequence that parks is written by the park alone; any other is written first", async () => {
    const retry = { max_attempts: 2, backoff: "fixed", initial_delay: 60 };
    // Pure: nothing written before the park. Acting outside: its start alone.
    for (const [language, flushes] of [
      ["javascript", 0],
      ["python", 1],
    ] as const) {
      const parks = start([code("flaky", { language, retry })]);
      parks.effects.code = () => codeFailed("boom");
      expect(await parks.run.run()).toBe("parked");
      expect(parks.committer.flushes).toBe(flushes);
      expect(parks.committer.eventsOf("flaky")).toEqual(["step_started", "step_retrying"]);
      expect(stateOf(parks, "flaky")).toMatchObject({ attempts: 1, error: "step `flaky`: boom" });
    }
    // In a branch, beside steps that may run on past its due time.
    const branch = start([
      { name: "par", type: "parallel", branches: { a: [code("flaky", { language: "javascript", retry })] } },
    ]);
    branch.effects.code = () => codeFailed("boom");
    expect(await branch.run.run()).toBe("parked");
    expect(branch.committer.flushes).toBe(1);
    expect(branch.committer.stored.steps.flaky?.retryAt).toEqual(expect.any(Number));
    const held = start([code("flaky", { language: "javascript", retry: { ...retry, initial_delay: 0.01 } })]);
    held.effects.code = () => (held.effects.codeCalls.length === 1 ? codeFailed("boom") : codeOk(2));
    expect(await held.run.run()).toBe("terminal");
    expect(held.committer.flushes).toBe(1);
    expect(held.committer.stored.steps.flaky?.retryAt).toEqual(expect.any(Number));
  });

  it("a backoff begun by a run its own timer woke arms one timer, not two", async () => {
    const t = start([code("flaky", { retry: { max_attempts: 3, backoff: "fixed", initial_delay: 60 } })]);
    t.effects.code = () => codeFailed("boom");
    t.effects.wokenFor = "flaky";
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.wakes).toEqual([{ path: "flaky", dueAt: stateOf(t, "flaky").retryAt }]);
  });

  it("gives up after max_attempts with the last attempt's error", async () => {
    const t = start([code("flaky", { retry: { max_attempts: 2, backoff: "fixed", initial_delay: 0.001 } })]);
    t.effects.code = () => codeFailed(`boom ${t.effects.codeCalls.length}`);
    await t.run.run();
    expect(stateOf(t, "flaky")).toMatchObject({
      status: "FAILED",
      attempts: 2,
      error: "step `flaky`: boom 2",
      retryAt: null,
    });
    expect(t.snap).toMatchObject({ status: "FAILED", error: "step `flaky`: boom 2" });
  });

  it("an expression error is not retried: it cannot pass", async () => {
    const t = start([
      { name: "broken", type: "transform", output: "{{ vars.( }}", retry: { max_attempts: 3, initial_delay: 0.001 } },
    ]);
    await t.run.run();
    expect(stateOf(t, "broken")).toMatchObject({ status: "FAILED", attempts: 1 });
    expect(t.committer.eventsOf("broken")).toEqual(["step_started", "step_failed"]);
  });

  it("a backoff longer than the hold parks the execution on a durable wake; resumed when due, the next attempt runs", async () => {
    const t = start([code("flaky", { retry: { max_attempts: 2, backoff: "fixed", initial_delay: 60 } })]);
    t.effects.code = () => (t.effects.codeCalls.length === 1 ? codeFailed("boom") : codeOk("second"));
    expect(await t.run.run()).toBe("parked");
    const parked = stateOf(t, "flaky");
    expect(parked).toMatchObject({ status: "RUNNING", attempts: 1, error: "step `flaky`: boom" });
    expect(parked.retryAt).toBeGreaterThan(Date.now() + 59_000);
    // One timer for one backoff.
    expect(t.effects.wakes).toEqual([{ path: "flaky", dueAt: parked.retryAt }]);
    expect(t.committer.events.at(-1)).toMatchObject({ type: "exec_parked", data: { waitingOn: ["flaky"] } });

    later(61_000);
    const resumed = t.resumed();
    expect(await resumed.run.run()).toBe("terminal");
    expect(stateOf(resumed, "flaky")).toMatchObject({ status: "COMPLETED", attempts: 2, output: "second" });
    expect(t.effects.codeCalls).toHaveLength(2);
  });
});

describe("timeouts", () => {
  it("a code step's timeout is its runner's to enforce (30 s when unset): the run keeps no deadline for it", async () => {
    const t = start([code("limited", { timeout: 2 }), code("unlimited")]);
    await t.run.run();
    expect(t.effects.codeCalls.map((req) => req.timeoutMs)).toEqual([2_000, 30_000]);
    expect(stateOf(t, "limited").deadline).toBeNull();
  });

  it("an llm step still answering at its recorded deadline is stopped and fails", async () => {
    const t = start([{ name: "ask", type: "llm", model: "m", prompt: "hi", timeout: 0.02 }]);
    const signals: AbortSignal[] = [];
    t.effects.llmScript = (_req, signal) => {
      signals.push(signal);
      return new Promise((_resolve, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }),
      );
    };
    await t.run.run();
    const st = stateOf(t, "ask");
    expect(st).toMatchObject({ status: "FAILED", attempts: 1, error: "step `ask` timed out after 0.02 s" });
    expect(st.deadline).toBeGreaterThanOrEqual(st.startedAt! + 20);
    expect(signals.map((s) => s.aborted)).toEqual([true]);
    expect(t.snap.status).toBe("FAILED");
  });

  it("a parallel step past its timeout fails, and its running children are cancelled with the reason", async () => {
    const t = start([
      {
        name: "both",
        type: "parallel",
        timeout: 0.02,
        branches: { slow: [code("slow")], quick: [{ name: "quick", type: "transform", output: 1 }] },
      },
    ]);
    t.effects.code = (_req, signal) => untilAborted(signal);
    await t.run.run();
    const reason = "step `both` timed out after 0.02 s";
    expect(stateOf(t, "both")).toMatchObject({ status: "FAILED", error: reason });
    expect(stateOf(t, "slow")).toMatchObject({ status: "CANCELLED", error: reason });
    expect(stateOf(t, "quick").status).toBe("COMPLETED");
    expect(t.effects.codeSignals[0]?.aborted).toBe(true);
    expect(t.snap.status).toBe("FAILED");
  });

  it("a wait longer than its timeout parks with a wake at its deadline, and fails once woken past it", async () => {
    const t = start([{ name: "pause", type: "wait", seconds: 120, timeout: 5 }]);
    expect(await t.run.run()).toBe("parked");
    const st = stateOf(t, "pause");
    expect(st.deadline).not.toBeNull();
    expect(t.effects.wakes.map((w) => w.dueAt)).toEqual(expect.arrayContaining([st.deadline, st.waitUntil]));

    later(6_000);
    const resumed = t.resumed();
    expect(await resumed.run.run()).toBe("terminal");
    expect(stateOf(resumed, "pause")).toMatchObject({ status: "FAILED", error: "step `pause` timed out after 5 s" });
  });
});

describe("foreach", () => {
  it("runs its steps once per item, the item in scope, and collects the outputs in order", async () => {
    const t = start([
      { name: "each", type: "foreach", items: [1, 2, 3], steps: [code("double", { input: "{{ item }}" })] },
    ]);
    t.effects.code = (req) => codeOk((req.input as number) * 10);
    await t.run.run();
    expect(stateOf(t, "each")).toMatchObject({ status: "COMPLETED", output: [10, 20, 30] });
    expect(t.effects.codeCalls.map((req) => req.item)).toEqual([1, 2, 3]);
    expect(stateOf(t, "each[1].double").output).toBe(20);
    // Progress counts top-level steps only.
    expect(t.snap.completedSteps).toBe(1);
  });

  it("never runs more than `concurrency` items at once", async () => {
    const t = start([{ name: "each", type: "foreach", items: [1, 2, 3, 4, 5], concurrency: 2, steps: [code("work")] }]);
    let running = 0;
    let most = 0;
    t.effects.code = async () => {
      most = Math.max(most, ++running);
      await sleep(2);
      running -= 1;
      return codeOk(null);
    };
    await t.run.run();
    expect(t.effects.codeCalls).toHaveLength(5);
    expect(most).toBe(2);
  });

  it("runs a stored workflow's concurrency past the bound at the bound", async () => {
    const items = Array.from({ length: MAX_FOREACH_CONCURRENCY + 50 }, (_, i) => i);
    const t = start([{ name: "each", type: "foreach", items, concurrency: 3000, steps: [code("work")] }]);
    const held = holdAtOnce(MAX_FOREACH_CONCURRENCY);
    t.effects.code = held.code;
    await t.run.run();
    expect(stateOf(t, "each").status).toBe("COMPLETED");
    expect(t.effects.codeCalls).toHaveLength(items.length);
    expect(held.most()).toBe(MAX_FOREACH_CONCURRENCY);
  });

  it("nested containers run at most the execution's fan-out at once together, every item of them", async () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    const inner = { name: "inner", type: "foreach", items, concurrency: 20, steps: [code("work")] };
    const t = start([
      { name: "outer", type: "foreach", items, concurrency: 20, steps: [inner] },
      { name: "side", type: "parallel", branches: { a: [inner], b: [inner], c: [inner] } },
    ]);
    const held = holdAtOnce(MAX_EXECUTION_FAN_OUT);
    t.effects.code = held.code;
    await t.run.run();
    expect(stateOf(t, "outer")).toMatchObject({ status: "COMPLETED", output: items.map(() => items.map(() => null)) });
    expect(stateOf(t, "side").status).toBe("COMPLETED");
    expect(t.effects.codeCalls).toHaveLength(items.length * items.length + 3 * items.length);
    expect(held.most()).toBe(MAX_EXECUTION_FAN_OUT);
  });

  it("an item that fails fails the foreach, naming the item, and no later item starts", async () => {
    const t = start([{ name: "each", type: "foreach", items: [1, 2, 3], steps: [code("work")] }]);
    t.effects.code = (req) => (req.item === 2 ? codeFailed("boom") : codeOk(req.item));
    await t.run.run();
    expect(stateOf(t, "each")).toMatchObject({ status: "FAILED", error: "step `each` item 1: step `work`: boom" });
    expect(t.effects.codeCalls.map((req) => req.item)).toEqual([1, 2]);
    expect(t.snap.steps["each[2].work"]).toBeUndefined();
  });

  it("items that do not evaluate to a list fail the step", async () => {
    const t = start([{ name: "each", type: "foreach", items: "{{ vars.n }}", steps: [code("work")] }], { n: 3 });
    await t.run.run();
    expect(stateOf(t, "each")).toMatchObject({
      status: "FAILED",
      error: "step `each`: `items` must evaluate to an array, got number",
    });
    expect(t.effects.codeCalls).toHaveLength(0);
  });
});

describe("parallel", () => {
  it("runs its branches at once and maps each branch's name to its last output", async () => {
    const t = start([
      {
        name: "both",
        type: "parallel",
        branches: {
          left: [code("l1", { input: "L" }), { name: "l2", type: "transform", output: "{{ steps.l1.output }}-2" }],
          right: [code("r1", { input: "R" })],
        },
      },
    ]);
    let running = 0;
    let most = 0;
    t.effects.code = async (req) => {
      most = Math.max(most, ++running);
      await sleep(2);
      running -= 1;
      return codeOk(req.input);
    };
    await t.run.run();
    expect(most).toBe(2);
    expect(stateOf(t, "both")).toMatchObject({ status: "COMPLETED", output: { left: "L-2", right: "R" } });
  });

  it("runs a stored workflow's branches past the bound at most that many at once, every one of them", async () => {
    const width = MAX_PARALLEL_BRANCHES + 30;
    const branches = Object.fromEntries(Array.from({ length: width }, (_, i) => [`b${i}`, [code(`s${i}`)]]));
    const t = start([{ name: "fan", type: "parallel", branches }]);
    const held = holdAtOnce(MAX_PARALLEL_BRANCHES);
    t.effects.code = held.code;
    await t.run.run();
    expect(stateOf(t, "fan").status).toBe("COMPLETED");
    expect(Object.keys(stateOf(t, "fan").output as object)).toHaveLength(width);
    expect(held.most()).toBe(MAX_PARALLEL_BRANCHES);
  });

  it("a failing branch fails the parallel step, naming the branch", async () => {
    const t = start([{ name: "both", type: "parallel", branches: { left: [code("l1")], right: [code("r1")] } }]);
    t.effects.code = () => (t.effects.codeCalls.length === 2 ? codeFailed("boom") : codeOk(null));
    await t.run.run();
    expect(stateOf(t, "both")).toMatchObject({ status: "FAILED", error: "step `both` branch right: step `r1`: boom" });
    expect(stateOf(t, "l1").status).toBe("COMPLETED");
    expect(t.snap.status).toBe("FAILED");
  });

  it("a failing branch ends what another branch or item waits on: nothing under the failed step stays RUNNING", async () => {
    const t = start([
      {
        name: "both",
        type: "parallel",
        branches: {
          left: [code("l1")],
          right: [{ name: "nap", type: "wait", seconds: 3600 }],
          items: [
            { name: "each", type: "foreach", items: [1, 2], steps: [{ name: "doze", type: "wait", seconds: 60 }] },
          ],
        },
      },
    ]);
    t.effects.code = () => codeFailed("boom");
    expect(await t.run.run()).toBe("terminal");
    expect(t.snap.status).toBe("FAILED");
    const error = "step `both` branch left: step `l1`: boom";
    for (const path of ["nap", "each[0].doze", "each"])
      expect([path, stateOf(t, path).status, stateOf(t, path).error]).toEqual([path, "CANCELLED", error]);
    expect(Object.values(t.snap.steps).filter((st) => st.status === "RUNNING")).toEqual([]);
  });
});

describe("manual_approval", () => {
  const rows = [{ id: 1 }, { id: 2 }];
  const gated = [
    code("ship", {
      input: "{{ approval.rows }}",
      manual_approval: {
        message: "Ship {{ vars.what }}?",
        timeout: 3600,
        groups: [
          {
            name: "rows",
            title: "Rows",
            items: "{{ vars.rows }}",
            columns: [{ key: "id", title: "Id", type: "number" }],
          },
        ],
      },
    }),
    { name: "after", type: "transform", output: "done" },
  ];

  async function parkedOnApproval(): Promise<RunUnderTest> {
    const t = start(gated, { what: "the release", rows });
    expect(await t.run.run()).toBe("parked");
    return t;
  }

  it("parks on its approval, opened once with the rendered message and rows; the gated step has not run", async () => {
    const t = await parkedOnApproval();
    expect(t.snap.status).toBe("AWAITING_APPROVAL");
    expect(stateOf(t, "ship").status).toBe("AWAITING_APPROVAL");
    expect(t.effects.openedApprovals).toEqual([stateOf(t, "ship").approvalId]);
    const [record] = t.effects.approvals.values();
    expect(record).toMatchObject({ status: "PENDING", stepName: "ship", approvalMessage: "Ship the release?" });
    expect(record?.reviewableGroups[0]?.items).toEqual(rows);
    expect(t.effects.codeCalls).toHaveLength(0);
    expect(t.committer.events.at(-1)).toMatchObject({ type: "exec_parked", data: { waitingOn: ["ship"] } });
  });

  it("approved: resumed, the gated step runs once, with the reviewer's edited rows", async () => {
    const t = await parkedOnApproval();
    t.effects.decide("APPROVED", { decidedBy: "ann", editedItems: { rows: [{ id: 2 }] } });
    const resumed = t.resumed();
    expect(await resumed.run.run()).toBe("terminal");
    expect(resumed.snap.status).toBe("COMPLETED");
    expect(t.effects.codeCalls.map((req) => req.input)).toEqual([[{ id: 2 }]]);
    expect(resumed.committer.eventsOf("ship")).toEqual(["step_approved", "step_started", "step_completed"]);
    expect(stateOf(resumed, "after").status).toBe("COMPLETED");
    expect(t.effects.openedApprovals).toHaveLength(1);
  });

  it("replayed while still pending: opens the same approval again (a writer that died after its record may have left out its list entries and timer) and parks", async () => {
    const t = await parkedOnApproval();
    const id = stateOf(t, "ship").approvalId;
    const replayed = t.resumed();
    expect(await replayed.run.run()).toBe("parked");
    expect(t.effects.openedApprovals).toEqual([id, id]);
    expect([...t.effects.approvals.keys()]).toEqual([id]);
    expect(t.effects.codeCalls).toHaveLength(0);
  });

  it("a run ending beside an open approval writes a branch's last result before it closes the approval", async () => {
    const t = start([
      {
        name: "both",
        type: "parallel",
        branches: {
          gate: [code("ship", { manual_approval: { message: "Ship?", timeout: 3600 } })],
          bad: [code("boom", { code: "boom" })],
          good: [code("py", { code: "last" })],
        },
      },
    ]);
    t.effects.code = async (req) => {
      if (req.code === "boom") return codeFailed("boom");
      // The last branch to end: the others have parked and failed.
      await vi.waitFor(() => expect(stateOf(t, "boom").status).toBe("FAILED"));
      return codeOk(1);
    };
    let written: string | undefined;
    const cancel = t.effects.cancelApproval.bind(t.effects);
    t.effects.cancelApproval = (id, reason) => {
      written = t.committer.stored.steps.py?.status;
      return cancel(id, reason);
    };
    expect(await t.run.run()).toBe("terminal");
    expect(t.effects.cancelledApprovals).toEqual([stateOf(t, "ship").approvalId]);
    expect(written).toBe("COMPLETED");
  });

  it.each([
    ["REJECTED", { comment: "not today" }, /^approval \S+ rejected: not today$/],
    ["EXPIRED", {}, /^approval \S+ expired$/],
  ] as const)(
    "%s: resumed, the gated step never runs, what follows is skipped and the execution fails",
    async (status, changes, error) => {
      const t = await parkedOnApproval();
      t.effects.decide(status, changes);
      const resumed = t.resumed();
      expect(await resumed.run.run()).toBe("terminal");
      expect(stateOf(resumed, "ship").status).toBe(status);
      expect(stateOf(resumed, "ship").error).toMatch(error);
      expect(stateOf(resumed, "after").status).toBe("SKIPPED");
      expect(resumed.snap.status).toBe("FAILED");
      expect(resumed.snap.error).toMatch(error);
      expect(t.effects.codeCalls).toHaveLength(0);
    },
  );
});

describe("cancellation", () => {
  it("a cancel while a code step runs stops its attempt; the step and the execution end CANCELLED", async () => {
    const t = start([code("work"), code("next")]);
    t.effects.code = (_req, signal) => untilAborted(signal);
    const started = t.effects.nextCode();
    const done = t.run.run();
    await started;
    t.run.cancel();
    expect(await done).toBe("terminal");
    expect(t.effects.codeSignals[0]?.aborted).toBe(true);
    expect(stateOf(t, "work").status).toBe("CANCELLED");
    expect(t.snap.steps.next).toBeUndefined();
    expect(t.snap).toMatchObject({ status: "CANCELLED", error: "execution cancelled" });
    expect(t.committer.events.at(-1)?.type).toBe("exec_cancelled");
  });

  it("cancelled while another branch waits on a child execution: the child is cancelled too", async () => {
    const t = start([
      {
        name: "both",
        type: "parallel",
        branches: { sub: [{ name: "child", type: "workflow", workflow: "other" }], work: [code("work")] },
      },
    ]);
    t.effects.code = (_req, signal) => untilAborted(signal);
    const started = t.effects.nextCode();
    const done = t.run.run();
    await started;
    await vi.waitFor(() => expect(t.effects.startedChildren).toHaveLength(1), { interval: 1 });
    t.run.cancel();
    expect(await done).toBe("terminal");
    expect(t.effects.cancelledChildren).toEqual([t.effects.startedChildren[0]?.childId]);
    for (const path of ["both", "child", "work"]) expect(stateOf(t, path).status).toBe("CANCELLED");
    expect(t.snap.status).toBe("CANCELLED");
  });

  it("a parked execution cancelled (as the cancel command ends one nobody runs): its approval and its child are cancelled", async () => {
    const t = start([
      {
        name: "both",
        type: "parallel",
        branches: {
          gate: [code("gated", { manual_approval: { message: "ok?", timeout: 60 } })],
          sub: [{ name: "child", type: "workflow", workflow: "other" }],
        },
      },
    ]);
    expect(await t.run.run()).toBe("parked");
    const cancelling = t.resumed();
    await cancelling.run.finishCancelled();
    const approvalId = stateOf(cancelling, "gated").approvalId;
    expect(t.effects.cancelledApprovals).toEqual([approvalId]);
    expect(t.effects.approvals.get(approvalId!)?.status).toBe("CANCELLED");
    expect(t.effects.cancelledChildren).toEqual([stateOf(cancelling, "child").childExecutionId]);
    for (const path of ["both", "gated", "child"]) expect(stateOf(cancelling, path).status).toBe("CANCELLED");
    expect(cancelling.snap.status).toBe("CANCELLED");
    expect(t.effects.codeCalls).toHaveLength(0);
  });

  it("a cancel recorded before the run starts ends it CANCELLED without running a step", async () => {
    const workflow = workflowOf({ name: "t", steps: [code("work")] });
    const snapshot = { ...snapshotOf(workflow, {}), cancelRequested: true };
    const t = new RunUnderTest(workflow, new FakeEffects(), snapshot);
    expect(await t.run.run()).toBe("terminal");
    expect(t.snap.status).toBe("CANCELLED");
    expect(t.effects.codeCalls).toHaveLength(0);
  });
});

describe("a stopping process", () => {
  it("parks before the next step, and the run resumed elsewhere goes on from there", async () => {
    const t = start([code("a"), code("b")]);
    t.effects.code = () => {
      // The stop comes while `a` runs: `a` finishes, `b` is left for another replica.
      t.effects.stopping = true;
      return codeOk(t.effects.codeCalls.length);
    };
    expect(await t.run.run()).toBe("parked");
    expect(stateOf(t, "a").status).toBe("COMPLETED");
    expect(t.snap.steps.b).toBeUndefined();

    t.effects.stopping = false;
    const elsewhere = t.resumed();
    expect(await elsewhere.run.run()).toBe("terminal");
    expect(elsewhere.snap.status).toBe("COMPLETED");
    expect(t.effects.codeCalls).toHaveLength(2);
  });

  it("parks a backoff it would have held in memory, on its one durable timer", async () => {
    const t = start([code("flaky", { retry: { max_attempts: 2, backoff: "fixed", initial_delay: 0.01 } })]);
    t.effects.code = () => {
      t.effects.stopping = true;
      return codeFailed("boom");
    };
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.wakes).toEqual([{ path: "flaky", dueAt: stateOf(t, "flaky").retryAt }]);
  });
});

describe("artifacts", () => {
  it("a step whose artifacts the owner's day has no room for fails naming it, not retried, and records none", async () => {
    const t = start([code("write", { retry: { max_attempts: 3, backoff: "fixed", initial_delay: 0.001 } })]);
    t.effects.code = () => ({ ...codeOk(1), artifacts: [{ path: "a.txt", size: 3, content: Buffer.from("abc") }] });
    t.effects.artifactRefusal = "its artifacts (3 bytes) were not stored: past the free plan's day";
    expect(await t.run.run()).toBe("terminal");
    expect(stateOf(t, "write")).toMatchObject({
      status: "FAILED",
      attempts: 1,
      error: "step `write`: its artifacts (3 bytes) were not stored: past the free plan's day",
    });
    expect(stateOf(t, "write").artifacts).toBeUndefined();
    expect(t.committer.eventsOf("write")).not.toContain("step_artifacts");
  });
});

describe("cancel", () => {
  it("a run that finds its cancel requested ends CANCELLED with the cancel's reason, or the plain words without one", async () => {
    for (const reason of ["execution aborted in the debugger by ada", undefined]) {
      const t = start([code("a")]);
      t.snap.cancelRequested = true;
      if (reason !== undefined) t.snap.cancelReason = reason;
      expect(await t.run.run()).toBe("terminal");
      expect([t.snap.status, t.snap.error]).toEqual(["CANCELLED", reason ?? "execution cancelled"]);
      expect(t.effects.codeCalls).toEqual([]);
    }
  });
});

describe("durable timers", () => {
  it("are armed once, when a wait, a backoff or a parked step's deadline begins: replays for other reasons arm none", async () => {
    const t = start([
      {
        name: "par",
        type: "parallel",
        branches: {
          w: [{ name: "nap", type: "wait", seconds: 60, timeout: 120 }],
          r: [code("flaky", { retry: { max_attempts: 2, backoff: "fixed", initial_delay: 60 } })],
          c: [{ name: "child", type: "workflow", workflow: "other" }],
        },
      },
    ]);
    t.effects.code = () => codeFailed("boom");
    expect(await t.run.run()).toBe("parked");
    const armed = [...t.effects.wakes];
    const nap = stateOf(t, "nap");
    expect(armed).toEqual(
      expect.arrayContaining([
        { path: "nap", dueAt: nap.waitUntil },
        { path: "nap", dueAt: nap.deadline },
        { path: "flaky", dueAt: stateOf(t, "flaky").retryAt },
      ]),
    );
    expect(armed).toHaveLength(3);
    // The child's end (and two more resumes for it) replay the run: every wait is still early, nothing is armed again.
    Object.assign(t.effects.executions.get(t.effects.startedChildren[0]!.childId)!, { status: "COMPLETED", output: 1 });
    for (let i = 0; i < 3; i++) expect(await t.resumed().run.run()).toBe("parked");
    expect(t.effects.wakes).toEqual(armed);
    // Woken early by nap's timer (its host's clock ahead): nap's wait and deadline are armed again, not flaky's backoff.
    t.effects.wokenFor = "nap";
    expect(await t.resumed().run.run()).toBe("parked");
    expect(t.effects.wakes.slice(armed.length)).toEqual(
      expect.arrayContaining([
        { path: "nap", dueAt: nap.waitUntil },
        { path: "nap", dueAt: nap.deadline },
      ]),
    );
    expect(t.effects.wakes).toHaveLength(armed.length + 2);
  });
});

describe("replay from the stored snapshot", () => {
  it("a run resumed after a park goes on from where it stopped: completed steps are not run again", async () => {
    const t = start([code("a"), { name: "pause", type: "wait", seconds: 60 }, code("b")]);
    t.effects.code = () => codeOk(t.effects.codeCalls.length);
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.codeCalls).toHaveLength(1);
    const waitUntil = stateOf(t, "pause").waitUntil;
    expect(t.effects.wakes).toEqual([{ path: "pause", dueAt: waitUntil }]);

    later(61_000);
    const resumed = t.resumed();
    expect(await resumed.run.run()).toBe("terminal");
    expect(t.effects.codeCalls).toHaveLength(2);
    expect(stateOf(resumed, "a")).toMatchObject({ status: "COMPLETED", output: 1, attempts: 1 });
    expect(stateOf(resumed, "pause")).toMatchObject({ status: "COMPLETED", output: { waitedUntil: waitUntil } });
    expect(stateOf(resumed, "b")).toMatchObject({ status: "COMPLETED", output: 2 });
    expect(resumed.committer.eventsOf("a")).toEqual([]);
    expect(resumed.snap.completedSteps).toBe(3);
  });

  it("an attempt in flight when its actor died is run again from the stored snapshot, under the same attempt number", async () => {
    const t = start([code("work")]);
    t.effects.code = (_req, signal) => untilAborted(signal);
    const started = t.effects.nextCode();
    const crashed = t.run.run();
    await started;
    // What the store holds: the attempt's start was made durable before the step's process began.
    const stored = t.committer.stored;
    expect(stored.steps.work).toMatchObject({ status: "RUNNING", attempts: 1 });

    t.effects.code = () => codeOk("again");
    const replayed = t.resumed(stored);
    expect(await replayed.run.run()).toBe("terminal");
    expect(stateOf(replayed, "work")).toMatchObject({ status: "COMPLETED", attempts: 1, output: "again" });
    expect(replayed.committer.eventsOf("work")).toEqual(["step_completed"]);
    t.run.cancel();
    await crashed;
  });

  it("a sub-workflow step parks until its child ends, then takes the child's output", async () => {
    const t = start([{ name: "child", type: "workflow", workflow: "other", inputs: { n: "{{ vars.n }}" } }], { n: 7 });
    expect(await t.run.run()).toBe("parked");
    const [started] = t.effects.startedChildren;
    expect(started).toMatchObject({ workflowId: "other", path: "child", inputs: { n: 7 } });
    expect(stateOf(t, "child").childExecutionId).toBe(started?.childId);

    Object.assign(t.effects.executions.get(started!.childId)!, { status: "COMPLETED", output: { sum: 8 } });
    const resumed = t.resumed();
    expect(await resumed.run.run()).toBe("terminal");
    expect(stateOf(resumed, "child")).toMatchObject({ status: "COMPLETED", output: { sum: 8 } });
    expect(t.effects.startedChildren).toHaveLength(1);
  });

  it("a sub-workflow start past the owner's budget waits, parked, and starts the child when woken", async () => {
    const t = start([{ name: "child", type: "workflow", workflow: "other" }]);
    const until = Date.now() + 30_000;
    t.effects.childThrottles.push(until);
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.startedChildren).toEqual([]);
    const waiting = stateOf(t, "child");
    expect(waiting).toMatchObject({ status: "RUNNING", waitUntil: until });
    expect(t.effects.wakes).toEqual([{ path: "child", dueAt: until }]);
    const events = t.committer.events.filter((e) => e.step === "child" && e.type === "step_waiting");
    expect(events.map((e) => e.data)).toEqual([{ until, reason: "subworkflow_budget" }]);

    later(31_000);
    const resumed = t.resumed();
    expect(await resumed.run.run()).toBe("parked");
    const [started] = t.effects.startedChildren;
    expect(started?.childId).toBe(waiting.childExecutionId);
    expect(stateOf(resumed, "child")).toMatchObject({ status: "RUNNING", waitUntil: null });
    Object.assign(t.effects.executions.get(started!.childId)!, { status: "COMPLETED", output: 1 });
    const ended = t.resumed();
    expect(await ended.run.run()).toBe("terminal");
    expect(stateOf(ended, "child")).toMatchObject({ status: "COMPLETED", output: 1, attempts: 1 });
  });

  it("a budget wait's timer is armed once: replays for other reasons leave it, one it woke early arms it again", async () => {
    const t = start([{ name: "child", type: "workflow", workflow: "other" }]);
    const until = Date.now() + 30_000;
    t.effects.childThrottles.push(until);
    expect(await t.run.run()).toBe("parked");
    for (let i = 0; i < 3; i++) expect(await t.resumed().run.run()).toBe("parked");
    expect(t.effects.wakes).toEqual([{ path: "child", dueAt: until }]);
    t.effects.wokenFor = "child";
    expect(await t.resumed().run.run()).toBe("parked");
    expect(t.effects.wakes).toEqual([
      { path: "child", dueAt: until },
      { path: "child", dueAt: until },
    ]);
    expect(t.effects.startedChildren).toEqual([]);
  });

  it("a short budget wait is held in memory, its timer armed, and the child starts in the same run", async () => {
    const t = start([{ name: "child", type: "workflow", workflow: "other" }]);
    const until = Date.now() + 20;
    t.effects.childThrottles.push(until);
    expect(await t.run.run()).toBe("parked");
    expect(t.effects.startedChildren).toHaveLength(1);
    expect(t.effects.wakes).toEqual([{ path: "child", dueAt: until }]);
    expect(Date.now()).toBeGreaterThanOrEqual(until);
  });
});

describe("llm steps", () => {
  it("an llm step's output is the model's answer, its prompt rendered", async () => {
    const t = start([{ name: "ask", type: "llm", model: "m", prompt: "Say {{ vars.word }}" }], { word: "hi" });
    t.effects.llmScript = (req) => answer(`${req.messages[0]?.role === "user" ? req.messages[0].text : ""}!`);
    await t.run.run();
    expect(stateOf(t, "ask")).toMatchObject({ status: "COMPLETED", output: "Say hi!" });
  });
});

describe("progress", () => {
  it("counts the workflow's own steps as they complete, not the steps inside a parallel's branches or a foreach", async () => {
    const t = start([
      code("first"),
      { name: "both", type: "parallel", branches: { left: [code("l1"), code("l2")], right: [code("r1")] } },
      { name: "each", type: "foreach", items: [1, 2], steps: [code("inner")] },
    ]);
    t.effects.code = () => codeOk(1);
    await t.run.run();
    expect(t.snap.status).toBe("COMPLETED");
    expect([t.snap.completedSteps, t.snap.totalSteps]).toEqual([3, 3]);
  });
});
