import { describe, expect, it } from "vitest";
import { addBranch, graph } from "./index";
import { editedText } from "./testing/edited";

const FANOUT = `name: fanout
steps:
  - name: both
    type: parallel
    branches:
      left:   # the first
        - name: a
          type: wait
          seconds: 1
      branch_2:
        - name: b
          type: wait
          seconds: 1
  - name: after
    type: transform
    output: {}
`;

describe("addBranch", () => {
  it("adds a branch after the last, named as no other, with a step to start from, selected", () => {
    const result = addBranch(FANOUT, { id: "both" });
    expect(editedText(result)).toBe(
      FANOUT.replace(
        "  - name: after\n",
        "      branch_3:\n        - name: step_5\n          type: transform\n          output: {}\n  - name: after\n",
      ),
    );
    expect(result.ok && result.id).toBe("step_5");
    expect(graph(editedText(result)).groups.find((g) => g.id === "both")?.branches).toEqual([
      "both/left",
      "both/branch_2",
      "both/branch_3",
    ]);
  });

  it("writes a branch of a parallel written in flow style in flow style", () => {
    const flow =
      "name: f\nsteps:\n  - { name: p, type: parallel, branches: { x: [ { name: s, type: wait, seconds: 1 } ] } }\n";
    expect(editedText(addBranch(flow, { id: "p" }))).toContain(
      "x: [ { name: s, type: wait, seconds: 1 } ], branch_2: [",
    );
  });

  it("is refused for a step that is not a parallel", () => {
    expect(addBranch(FANOUT, { id: "after" })).toMatchObject({ ok: false, error: "no parallel step `after`" });
  });
});
