import { describe, expect, it } from "vitest";
import type { ExecutionView } from "../../api/types";
import { stepView } from "../executions/test-support";
import { knownData } from "./known-data";

const fetched = { rows: [1, 2] };
const view = {
  id: "e1",
  workflowId: "w1",
  triggerSource: "open_api",
  startAt: 1796648400000,
  definition: { name: "greet" },
  variables: { who: "Ada" },
  steps: {
    fetch: stepView("COMPLETED", { output: fetched, duration: 12 }),
    check: stepView("FAILED", { error: "boom", duration: 3 }),
    "loop[0].inner": stepView("COMPLETED", { output: 1 }),
  },
} as unknown as ExecutionView;

describe("knownData, what expressions are previewed on", () => {
  it("takes the latest run's top-level results, variables and execution fields", () => {
    expect(knownData(view, { fetch: fetched })).toEqual({
      steps: {
        fetch: { output: fetched, status: "COMPLETED", duration: 12, error: null },
        check: { output: null, status: "FAILED", duration: 3, error: "boom" },
      },
      vars: { who: "Ada" },
      execution: {
        id: "e1",
        workflowId: "w1",
        workflowName: "greet",
        triggerSource: "open_api",
        startedAt: 1796648400000,
      },
      foreach: {},
    });
  });

  it("puts a pin's or a test's output in place of the run's, as a completed step of no known duration", () => {
    expect(knownData(view, { fetch: { rows: [] }, check: "fixed" }).steps).toEqual({
      fetch: { output: { rows: [] }, status: "COMPLETED", duration: null, error: null },
      check: { output: "fixed", status: "COMPLETED", duration: null, error: null },
    });
    expect(knownData(undefined, { fetch: 1 })).toEqual({
      steps: { fetch: { output: 1, status: "COMPLETED", duration: null, error: null } },
      vars: null,
      execution: null,
      foreach: {},
    });
  });

  it("gives the items of each top-level foreach that ran its first item, and what the run rendered them on", () => {
    const definition = {
      name: "greet",
      steps: [
        { name: "fetch", type: "transform", output: fetched },
        { name: "check", type: "transform", output: 1 },
        { name: "loop", type: "foreach", items: "{{ steps.fetch.output.rows }}", steps: [{ name: "inner" }] },
        { name: "idle", type: "foreach", items: [], steps: [{ name: "never" }] },
        { name: "listed", type: "foreach", items: [{ id: 1 }], steps: [{ name: "shape" }] },
      ],
    };
    const ran = {
      ...view,
      definition,
      steps: { ...view.steps, loop: stepView("COMPLETED", { output: [1, 2] }), "listed[0].shape": stepView("FAILED") },
    } as ExecutionView;
    const known = knownData(ran, { fetch: { rows: ["pinned"] } });
    const { vars, execution } = known;
    // The run's results, not the pin: the items are the run's.
    const before = {
      fetch: { output: fetched, status: "COMPLETED", duration: 12, error: null },
      check: { output: null, status: "FAILED", duration: 3, error: "boom" },
    };
    expect(known.foreach).toEqual({
      loop: {
        run: "e1",
        path: "loop",
        items: "{{ steps.fetch.output.rows }}",
        context: { steps: before, vars, execution },
        steps: { inner: { output: 1, status: "COMPLETED", duration: null, error: null } },
      },
      listed: {
        run: "e1",
        path: "listed",
        items: [{ id: 1 }],
        context: {
          steps: { ...before, loop: { output: [1, 2], status: "COMPLETED", duration: null, error: null } },
          vars,
          execution,
        },
        steps: { shape: { output: null, status: "FAILED", duration: null, error: null } },
      },
    });
  });

  it("gives a foreach in a parallel's branch, and one in another's first item, by its path in item 0", () => {
    const definition = {
      name: "greet",
      steps: [
        { name: "fetch", type: "transform", output: fetched },
        {
          name: "fan",
          type: "parallel",
          branches: {
            left: [
              { name: "pre", type: "transform", output: 2 },
              { name: "branched", type: "foreach", items: [1], steps: [{ name: "b" }] },
            ],
            right: [{ name: "other", type: "transform", output: 3 }],
          },
        },
        {
          name: "outer",
          type: "foreach",
          items: "{{ steps.fetch.output.rows }}",
          steps: [
            { name: "shape", type: "transform" },
            { name: "inner", type: "foreach", items: "{{ item.rows }}", steps: [{ name: "deep" }] },
          ],
        },
      ],
    };
    const done = (output: unknown) => stepView("COMPLETED", { output });
    const ran = {
      ...view,
      definition,
      steps: {
        fetch: view.steps.fetch,
        pre: done(2),
        other: done(3),
        "branched[0].b": done("b0"),
        "branched[1].b": done("b1"),
        fan: done({}),
        "outer[0].shape": done("s0"),
        "outer[1].shape": done("s1"),
        "outer[0].inner[0].deep": done("d00"),
        "outer[0].inner[1].deep": done("d01"),
        "outer[1].inner[0].deep": done("d10"),
      },
    } as unknown as ExecutionView;
    const { foreach, vars, execution } = knownData(ran, {});
    const result = (output: unknown) => ({ output, status: "COMPLETED", duration: null, error: null });
    const fetchedResult = { output: fetched, status: "COMPLETED", duration: 12, error: null };
    expect(Object.keys(foreach)).toEqual(["branched", "outer", "outer[0].inner"]);
    // In its branch, after the steps before the parallel and before it in the branch (kept beside the parallel).
    expect(foreach.branched).toEqual({
      run: "e1",
      path: "branched",
      items: [1],
      context: { steps: { fetch: fetchedResult, pre: result(2) }, vars, execution },
      steps: { b: result("b0") },
    });
    expect(foreach.outer).toEqual({
      run: "e1",
      path: "outer",
      items: "{{ steps.fetch.output.rows }}",
      context: { steps: { fetch: fetchedResult, fan: result({}) }, vars, execution },
      steps: { shape: result("s0") },
    });
    // Rendered in the outer's first item: its steps before the inner (the preview gives the outer's first item).
    expect(foreach["outer[0].inner"]).toEqual({
      run: "e1",
      path: "outer[0].inner",
      items: "{{ item.rows }}",
      context: { steps: { fetch: fetchedResult, fan: result({}), shape: result("s0") }, vars, execution },
      steps: { deep: result("d00") },
    });
  });
});
