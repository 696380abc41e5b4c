import { describe, expect, it } from "vitest";
import { graph as canvasGraph } from "@wf/shared/canvas";
import { stepsBefore } from "./steps-before";

const graph = canvasGraph(`name: x
steps:
  - { name: fetch, type: transform, output: 1 }
  - { name: shape, type: transform, output: 2 }
  - name: each
    type: foreach
    items: [1]
    steps:
      - { name: inner, type: transform, output: 3 }
  - name: both
    type: parallel
    branches:
      left:
        - { name: lefty, type: transform, output: 4 }
  - { name: last, type: transform, output: 5 }
`);
const before = (id: string) =>
  stepsBefore(
    graph,
    graph.nodes.find((n) => n.id === id)!,
  );

describe("stepsBefore, the steps whose outputs a step can read", () => {
  it("lists the top-level steps before it, in order", () => {
    expect(before("fetch")).toEqual([]);
    expect(before("last")).toEqual(["fetch", "shape", "each", "both"]);
  });

  it("lists, for a step in a foreach or a parallel's branch, those before its container", () => {
    expect(before("inner")).toEqual(["fetch", "shape"]);
    expect(before("lefty")).toEqual(["fetch", "shape", "each"]);
  });
});
