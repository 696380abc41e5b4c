import { describe, expect, it } from "vitest";
import { runGraph } from "./run-graph";

describe("the run's workflow on the canvas", () => {
  it("draws the definition the execution recorded, containers and their steps", () => {
    const drawn = runGraph({
      name: "recorded",
      steps: [
        { name: "first", type: "transform", output: "x", retry: { max_attempts: 3 } },
        {
          name: "each",
          type: "foreach",
          items: [1, 2],
          steps: [{ name: "double", type: "transform", output: "{{ item * 2 }}" }],
        },
      ],
    });
    expect(drawn?.nodes.map((n) => [n.id, n.group ?? null])).toEqual([
      ["first", null],
      ["each", null],
      ["double", "each"],
    ]);
    expect(drawn?.nodes[0]?.badges.map((b) => b.label)).toEqual(["retry ×3"]);
    expect(drawn?.issues).toEqual([]);
  });

  it("has nothing to draw without a definition or without steps", () => {
    expect(runGraph(null)).toBeNull();
    expect(runGraph("name: x")).toBeNull();
    expect(runGraph({ name: "x", steps: [] })).toBeNull();
  });
});
