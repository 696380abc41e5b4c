import { describe, expect, it } from "vitest";
import type { StepView } from "../../api/types";
import { compareProblem, compareRows, FOLD_AT, visibleRows, type CompareRow } from "./compare-runs";
import { stepView } from "./test-support";

const definition = {
  name: "orders",
  steps: [
    { name: "fetch", type: "code" },
    { name: "loop", type: "foreach", steps: [{ name: "each", type: "transform" }] },
    { name: "both", type: "parallel", branches: { left: [{ name: "l1", type: "transform" }] } },
    { name: "send", type: "http" },
  ],
};

const run = (steps: Record<string, StepView>, def: unknown = definition) => ({ definition: def, steps });

/** Each row as "path: what differs", the way a person reads the table. */
const outline = (rows: CompareRow[]) =>
  rows.map(
    (r) =>
      `${"  ".repeat(r.depth)}${r.path}${r.differs ? " *" : ""}${r.a === null ? " (not in A)" : ""}${r.b === null ? " (not in B)" : ""}`,
  );

describe("comparing two runs", () => {
  it("lists every step path of both runs in workflow order, nested ones under their container, and marks what differs", () => {
    const a = run({
      fetch: stepView("COMPLETED", { output: { n: 1 }, duration: 100 }),
      loop: stepView("COMPLETED"),
      "loop[0].each": stepView("COMPLETED", { output: 1 }),
      both: stepView("COMPLETED"),
      l1: stepView("COMPLETED"),
      send: stepView("COMPLETED", { output: "ok" }),
    });
    const b = run({
      fetch: stepView("COMPLETED", { output: { n: 1 }, duration: 250 }),
      loop: stepView("COMPLETED"),
      "loop[0].each": stepView("COMPLETED", { output: 1 }),
      "loop[1].each": stepView("COMPLETED", { output: 2 }),
      both: stepView("COMPLETED"),
      l1: stepView("FAILED", { error: "boom", attempts: 3 }),
    });
    const rows = compareRows(a, b);
    expect(outline(rows)).toEqual([
      "fetch",
      "loop",
      "  loop[0].each",
      "  loop[1].each * (not in A)",
      "both",
      "  l1 *",
      "send * (not in B)",
    ]);
    const fetch = rows[0]!;
    expect(fetch.durationDelta).toBe(150);
    expect(fetch.outputDiffers).toBe(false);
    const send = rows.find((r) => r.path === "send")!;
    expect(send.output).toEqual([{ op: "remove", line: '"ok"' }]);
    const l1 = rows.find((r) => r.path === "l1")!;
    expect([l1.a?.status, l1.b?.status, l1.b?.attempts]).toEqual(["COMPLETED", "FAILED", 3]);
  });

  it("diffs the outputs line by line as pretty-printed JSON", () => {
    const rows = compareRows(
      run({ fetch: stepView("COMPLETED", { output: { id: 7, total: 10, note: "same" } }) }),
      run({ fetch: stepView("COMPLETED", { output: { id: 7, total: 12, note: "same" } }) }),
    );
    expect(rows[0]!.outputDiffers).toBe(true);
    expect(rows[0]!.output).toEqual([
      { op: "same", line: "{" },
      { op: "same", line: '  "id": 7,' },
      { op: "remove", line: '  "total": 10,' },
      { op: "add", line: '  "total": 12,' },
      { op: "same", line: '  "note": "same"' },
      { op: "same", line: "}" },
    ]);
  });

  it("slots a step only B's version has after the step B runs before it", () => {
    const v2 = { steps: [{ name: "fetch" }, { name: "check" }, { name: "send" }] };
    const rows = compareRows(
      run(
        { fetch: stepView("COMPLETED"), send: stepView("COMPLETED") },
        { steps: [{ name: "fetch" }, { name: "send" }] },
      ),
      run({ fetch: stepView("COMPLETED"), check: stepView("COMPLETED"), send: stepView("COMPLETED") }, v2),
    );
    expect(rows.map((r) => r.path)).toEqual(["fetch", "check", "send"]);
    expect(rows.map((r) => r.differs)).toEqual([false, true, false]);
  });

  it("a step neither run reached does not count as a difference", () => {
    const rows = compareRows(
      run({ fetch: stepView("FAILED", { error: "x" }) }),
      run({ fetch: stepView("FAILED", { error: "x" }) }),
    );
    expect(rows.filter((r) => r.differs)).toEqual([]);
    expect(rows.map((r) => r.path)).toContain("send");
  });

  it("folds a container's rows when it holds many, and keeps only differing rows (and their containers) when asked", () => {
    const steps: Record<string, StepView> = { fetch: stepView("COMPLETED"), loop: stepView("COMPLETED") };
    for (let i = 0; i <= FOLD_AT; i++) steps[`loop[${i}].each`] = stepView("COMPLETED", { output: i });
    const changed = { ...steps, "loop[3].each": stepView("COMPLETED", { output: "changed" }) };
    const rows = compareRows(run(steps), run(changed));

    const folded = visibleRows(rows, { onlyDifferences: false, opened: new Set() });
    expect(folded.map((r) => r.path)).toEqual(["fetch", "loop", "both", "l1", "send"]);
    const opened = visibleRows(rows, { onlyDifferences: true, opened: new Set(["loop"]) });
    expect(opened.map((r) => r.path)).toEqual(["loop", "loop[3].each"]);
  });

  it("refuses runs of two different workflows", () => {
    const orders = { workflowId: "w1", definition: { name: "orders" } };
    expect(compareProblem(orders, { ...orders, definition: { name: "renamed since" } })).toBeNull();
    expect(compareProblem(orders, { workflowId: "w2", definition: null })).toBe(
      "A is a run of “orders” and B of w2: only two runs of the same workflow line up step by step.",
    );
  });
});
