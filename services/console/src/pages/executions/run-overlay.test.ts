import { describe, expect, it } from "vitest";
import { graph } from "@wf/shared/canvas";
import type { StepStatus, StepView } from "../../api/types";
import { runOverlay } from "./run-overlay";
import { unreachedStatus } from "./step-tree";
import { stepView } from "./test-support";

const step = (status: StepStatus, more: Partial<StepView> = {}): StepView =>
  stepView(status, { startedAt: 1_000, ...more });

const usage = (totalTokens: number, costUsd: number) => ({
  promptTokens: totalTokens - 10,
  completionTokens: 10,
  totalTokens,
  costUsd,
});

const nested = graph(`
name: nested
steps:
  - { name: ask, type: llm, model: m, prompt: hi }
  - name: each
    type: foreach
    items: [1, 2, 3]
    steps:
      - { name: double, type: transform, output: "{{ item * 2 }}" }
      - { name: note, type: transform, output: noted }
  - name: both
    type: parallel
    branches:
      left:
        - { name: left_one, type: transform, output: L }
      right:
        - { name: right_one, type: transform, output: R }
  - { name: last, type: transform, output: done }
`);

describe("the run on the canvas", () => {
  it("gives a top-level step its status, duration, attempts, tokens and cost, and a step not reached yet pending", () => {
    const overlay = runOverlay(
      nested,
      { steps: { ask: step("COMPLETED", { duration: 1_234, attempts: 2, usage: usage(1_500, 0.0048) }) } },
      5_000,
    );
    expect(overlay.ask).toEqual({
      status: "COMPLETED",
      durationMs: 1_234,
      attempts: 2,
      tokens: 1_500,
      costUsd: 0.0048,
    });
    expect(overlay.last).toEqual({ status: "PENDING" });
    expect(Object.keys(overlay).sort()).toEqual([
      "ask",
      "both",
      "double",
      "each",
      "last",
      "left_one",
      "note",
      "right_one",
    ]);
  });

  it("shows a step a cancelled run never reached cancelled", () => {
    const overlay = runOverlay(
      nested,
      { steps: { ask: step("CANCELLED") }, unreached: unreachedStatus("CANCELLED") },
      5_000,
    );
    expect(overlay.ask!.status).toBe("CANCELLED");
    expect(overlay.last).toEqual({ status: "CANCELLED" });
    expect(unreachedStatus("RUNNING")).toBe("PENDING");
  });

  it("counts a running step's duration up to now, and shows no usage for a step without LLM calls", () => {
    const overlay = runOverlay(nested, { steps: { last: step("RUNNING", { startedAt: 1_000 }) } }, 4_500);
    expect(overlay.last).toEqual({ status: "RUNNING", durationMs: 3_500, attempts: 1, tokens: null, costUsd: null });
  });

  it("draws parallel branch steps, recorded under their own names, on their nodes", () => {
    const overlay = runOverlay(
      nested,
      {
        steps: {
          left_one: step("COMPLETED", { duration: 5 }),
          right_one: step("FAILED", { error: "no" }),
          both: step("FAILED"),
        },
      },
      9,
    );
    expect(overlay.left_one?.status).toBe("COMPLETED");
    expect(overlay.right_one?.status).toBe("FAILED");
    expect(overlay.both?.status).toBe("FAILED");
  });

  it("lists a foreach's items with their status and path, and sums a step's items on its node", () => {
    const steps = {
      each: step("COMPLETED", { duration: 90 }),
      "each[0].double": step("COMPLETED", { startedAt: 1_000, completedAt: 1_010, usage: usage(100, 0.001) }),
      "each[0].note": step("COMPLETED", { startedAt: 1_010, completedAt: 1_020 }),
      "each[1].double": step("COMPLETED", {
        startedAt: 1_005,
        completedAt: 1_050,
        attempts: 3,
        usage: usage(200, 0.002),
      }),
      "each[1].note": step("SKIPPED", { startedAt: 1_050, completedAt: 1_050 }),
      "each[10].double": step("FAILED", { startedAt: 1_060, completedAt: 1_090, error: "boom" }),
    };
    const overlay = runOverlay(nested, { steps }, 2_000);
    expect(overlay.each?.items).toEqual([
      { label: "item 0", status: "COMPLETED", path: "each[0]" },
      { label: "item 1", status: "COMPLETED", path: "each[1]" },
      { label: "item 10", status: "FAILED", path: "each[10]" },
    ]);
    expect(overlay.each?.status).toBe("COMPLETED");
    // From the first item's start to the last one's end; the most attempts any item took; every item's usage.
    expect(overlay.double).toMatchObject({ status: "FAILED", durationMs: 90, attempts: 3, tokens: 300 });
    expect(overlay.double?.costUsd).toBeCloseTo(0.003, 10);
    expect(overlay.note).toMatchObject({ status: "COMPLETED", tokens: null, costUsd: null });
    // Each item's run of the step, to open one.
    expect(overlay.double?.items).toEqual([
      { label: "item 0", status: "COMPLETED", path: "each[0].double" },
      { label: "item 1", status: "COMPLETED", path: "each[1].double" },
      { label: "item 10", status: "FAILED", path: "each[10].double" },
    ]);
  });

  it("keeps a foreach's steps and items running while the foreach runs, though the items so far completed", () => {
    const steps = {
      each: step("RUNNING"),
      "each[0].double": step("COMPLETED", { completedAt: 1_010 }),
      "each[0].note": step("COMPLETED", { completedAt: 1_020 }),
      "each[1].double": step("COMPLETED", { completedAt: 1_030 }),
    };
    const overlay = runOverlay(nested, { steps }, 2_000);
    expect(overlay.each?.items?.map((i) => i.status)).toEqual(["COMPLETED", "RUNNING"]);
    expect(overlay.double?.status).toBe("RUNNING");
    expect(overlay.note?.status).toBe("RUNNING");
  });

  it("says a step a rerun took over, nested steps included, was reused rather than how it ran, and edited if it was", () => {
    const steps = {
      ask: step("COMPLETED", { reused: true, usage: usage(1_500, 0.0048) }),
      each: step("COMPLETED", { reused: true, edited: true }),
      "each[0].double": step("COMPLETED", { reused: true, edited: true }),
      last: step("COMPLETED"),
    };
    const overlay = runOverlay(nested, { steps }, 0);
    expect(overlay.ask).toMatchObject({ status: "REUSED", tokens: 1_500 });
    expect([overlay.each?.status, overlay.double?.status, overlay.last?.status]).toEqual([
      "REUSED",
      "REUSED",
      "COMPLETED",
    ]);
    expect([overlay.ask?.edited, overlay.each?.edited, overlay.double?.edited, overlay.last?.edited]).toEqual([
      undefined,
      true,
      true,
      undefined,
    ]);
  });

  it("highlights the node a debug run waits at, and marks its breakpoints", () => {
    const overlay = runOverlay(
      nested,
      {
        steps: { "each[1].double": step("PENDING") },
        pausedAt: "each[1].double",
        marks: { double: ["before"], last: ["after"] },
      },
      0,
    );
    expect(overlay.double).toMatchObject({ paused: true, breakpoints: ["before"] });
    expect(overlay.last).toEqual({ status: "PENDING", breakpoints: ["after"] });
    expect(overlay.each?.paused).toBeUndefined();
  });

  it("marks the nodes where other branches wait their turn behind the pause, counting a foreach's items", () => {
    const overlay = runOverlay(
      nested,
      {
        steps: {
          "each[0].double": step("COMPLETED"),
          "each[1].double": step("COMPLETED"),
          "each[2].double": step("COMPLETED"),
          left_one: step("COMPLETED"),
          right_one: step("COMPLETED"),
        },
        pausedAt: "each[0].double",
        waitingAt: new Set(["each[1].double", "each[2].double", "right_one"]),
      },
      0,
    );
    expect(overlay.double).toMatchObject({ paused: true, waiting: 2 });
    expect(overlay.right_one).toMatchObject({ waiting: 1 });
    expect(overlay.right_one?.paused).toBeUndefined();
    expect(overlay.left_one?.waiting).toBeUndefined();
    expect(overlay.each?.waiting).toBeUndefined();
  });

  it("labels the items of a foreach inside a foreach by both indexes", () => {
    const twice = graph(`
name: twice
steps:
  - name: outer
    type: foreach
    items: [1, 2]
    steps:
      - name: inner
        type: foreach
        items: [1, 2]
        steps:
          - { name: x, type: transform, output: x }
`);
    const steps = {
      outer: step("COMPLETED"),
      "outer[0].inner": step("COMPLETED"),
      "outer[0].inner[0].x": step("COMPLETED"),
      "outer[1].inner": step("COMPLETED"),
      "outer[1].inner[0].x": step("COMPLETED"),
      "outer[1].inner[1].x": step("FAILED"),
    };
    const overlay = runOverlay(twice, { steps }, 0);
    expect(overlay.inner?.items).toEqual([
      { label: "item 0.0", status: "COMPLETED", path: "outer[0].inner[0]" },
      { label: "item 1.0", status: "COMPLETED", path: "outer[1].inner[0]" },
      { label: "item 1.1", status: "FAILED", path: "outer[1].inner[1]" },
    ]);
    expect(overlay.outer?.items?.map((i) => [i.label, i.status])).toEqual([
      ["item 0", "COMPLETED"],
      ["item 1", "FAILED"],
    ]);
    expect(overlay.x?.status).toBe("FAILED");
  });
});
