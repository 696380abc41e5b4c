import { describe, expect, it } from "vitest";
import { newDebugState, type Breakpoint, type DebugState, type PauseRecord } from "./debug";
import { waitingPoints } from "./debug-waiting";

/** A parallel whose branch `b` holds a foreach, and an agent step in branch `c`. */
const DEFINITION = {
  name: "waits",
  agents: [{ name: "helper", model: "m", instructions: "Help." }],
  steps: [
    {
      name: "par",
      type: "parallel",
      branches: {
        a: [{ name: "x1", type: "transform", output: 1 }],
        b: [
          {
            name: "each",
            type: "foreach",
            items: [1, 2],
            steps: [{ name: "work", type: "transform", output: "{{ item }}" }],
          },
        ],
        c: [{ name: "ask", type: "agent", agent: "helper", prompt: "go" }],
      },
    },
    { name: "last", type: "transform", output: 0 },
  ],
};

const PAUSE: PauseRecord = {
  id: "p1",
  breakpointId: "bp1",
  type: "after_step",
  stepPath: "x1",
  phase: "after",
  occurrence: 0,
  pausedAt: 1,
  context: { vars: {}, outputs: {} },
};

const BIG = "x".repeat(20_000);

function paused(breakpoints: Breakpoint[], more: Partial<DebugState>) {
  const debug = { ...newDebugState({ breakpoints, idleTimeout: 60 }), pause: PAUSE, ...more };
  return { status: "RUNNING" as const, definition: DEFINITION, debug };
}

describe("waitingPoints", () => {
  const breakpoints: Breakpoint[] = [
    { id: "bp1", type: "after_step", step: "x1", enabled: true },
    { id: "bp2", type: "after_step", step: "each[*].work", enabled: true },
    { id: "w", type: "watch", expression: "steps.work.output", enabled: true },
    { id: "bp3", type: "tool_call", step: "ask", tool: "search", enabled: true },
    { id: "off", type: "on_error", enabled: false },
  ];

  it("names the item, the branch and the breakpoints of each waiting point, and nothing the record keeps with it", () => {
    const { waiting, held } = waitingPoints(
      paused(breakpoints, {
        waiting: [
          {
            stepPath: "each[1].work",
            phase: "after",
            occurrence: 0,
            watches: { w: { before: { hash: "h1", value: BIG }, after: { hash: "h2", value: BIG } } },
          },
          { stepPath: "ask", phase: "tool_call", occurrence: 2, checkpoint: { attempt: 1, state: { big: BIG } } },
        ],
      }),
    );
    expect(waiting).toEqual([
      {
        stepPath: "each[1].work",
        phase: "after",
        occurrence: 0,
        items: [1],
        branch: "b",
        breakpoints: [
          { id: "bp2", type: "after_step" },
          { id: "w", type: "watch" },
        ],
        reason: "After step breakpoint bp2; Watch w: its step changed the value",
      },
      {
        stepPath: "ask",
        phase: "tool_call",
        occurrence: 2,
        items: [],
        branch: "c",
        breakpoints: [{ id: "bp3", type: "tool_call" }],
        reason: "Tool call breakpoint bp3",
      },
    ]);
    expect(held).toEqual([]);
    expect(JSON.stringify(waiting)).not.toContain("xxxx");
  });

  it("leaves out points no breakpoint may pause any more, and says what each held failure was, cut", () => {
    const { waiting, held } = waitingPoints(
      paused(
        breakpoints.filter((b) => b.id !== "bp2"),
        {
          waiting: [{ stepPath: "each[0].work", phase: "after", occurrence: 0 }],
          held: [{ stepPath: "last", occurrence: 2, error: `boom\n${BIG}`, retryable: true }],
        },
      ),
    );
    expect(waiting).toEqual([]);
    expect(held).toEqual([
      {
        stepPath: "last",
        phase: "error",
        occurrence: 2,
        items: [],
        branch: null,
        breakpoints: [],
        reason: expect.stringMatching(/^Attempt 2 failed: boom x+…$/),
      },
    ]);
    expect(held[0]!.reason.length).toBeLessThan(200);
  });

  it("leaves out a breakpoint whose hitCount the number given to the point's hit is not", () => {
    const counted = [
      { id: "five", type: "after_step", step: "each[*].work", hitCount: 5, enabled: true },
      { id: "two", type: "after_step", step: "each[*].work", hitCount: 2, enabled: true },
      { id: "fresh", type: "after_step", step: "each[*].work", hitCount: 3, enabled: true },
      { id: "err", type: "on_error", step: "last", hitCount: 2, enabled: true },
    ] satisfies Breakpoint[];
    const { waiting, held } = waitingPoints(
      paused(counted, {
        waiting: [{ stepPath: "each[0].work", phase: "after", occurrence: 0, hits: { five: 2, two: 2 } }],
        // Judged, its hit numbered 1, as the pause came: held until its retry is recorded, its on_error not pausing.
        held: [{ stepPath: "last", occurrence: 1, error: "boom", retryable: true, hits: { err: 1 } }],
      }),
    );
    // `fresh` gave this hit no number yet (added since): it counts it in the point's turn, and may pause.
    expect(waiting.map((w) => w.breakpoints.map((b) => b.id))).toEqual([["two", "fresh"]]);
    expect(held.map((h) => h.breakpoints)).toEqual([[]]);
  });

  it("lists a waiting tool call under the tool_call breakpoints of the tool it asks for, or of any when not recorded", () => {
    const tools = [
      { id: "any", type: "tool_call", enabled: true },
      { id: "search", type: "tool_call", tool: "search", enabled: true },
      { id: "crm", type: "tool_call", server: "crm", enabled: true },
    ] satisfies Breakpoint[];
    const call = (occurrence: number, tool?: { server: string; tool: string }) => ({
      stepPath: "ask",
      phase: "tool_call" as const,
      occurrence,
      ...(tool ? { tool } : {}),
    });
    const { waiting } = waitingPoints(
      paused(tools, {
        waiting: [call(1, { server: "crm", tool: "lookup" }), call(2, { server: "web", tool: "search" }), call(3)],
      }),
    );
    expect(waiting.map((w) => [w.occurrence, w.breakpoints.map((b) => b.id)])).toEqual([
      [1, ["any", "crm"]],
      [2, ["any", "search"]],
      [3, ["any", "search", "crm"]],
    ]);
  });

  it("shows nothing while no pause stands, or once the run has ended", () => {
    const record = paused(breakpoints, { waiting: [{ stepPath: "each[0].work", phase: "after", occurrence: 0 }] });
    expect(waitingPoints({ ...record, debug: { ...record.debug, pause: null } })).toEqual({ waiting: [], held: [] });
    expect(waitingPoints({ ...record, status: "CANCELLED" })).toEqual({ waiting: [], held: [] });
    expect(waitingPoints(record).waiting).toHaveLength(1);
  });
});
