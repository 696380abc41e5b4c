import { describe, expect, it } from "vitest";
import { graph as canvasGraph } from "@wf/shared/canvas";
import { readableSteps } from "./steps-before";

const graph = canvasGraph(`name: x
steps:
  - { name: fetch, type: transform, output: 1 }
  - { name: shape, type: transform, output: 2 }
  - name: each
    type: foreach
    items: [1]
    steps:
      - { name: inner, type: transform, output: 3 }
      - { name: inner2, type: transform, output: 3 }
  - name: both
    type: parallel
    branches:
      left:
        - { name: lefty, type: transform, output: 4 }
        - { name: lefty2, type: transform, output: 4 }
      right:
        - { name: righty, type: transform, output: 4 }
  - { name: last, type: transform, output: 5 }
`);
describe("readableSteps, every step a step can read by name", () => {
  const names = (id: string) =>
    readableSteps(
      graph,
      graph.nodes.find((n) => n.id === id)!,
    ).map((n) => n.name);

  it("adds the steps before it in its own foreach item or branch, after those of the lists outside", () => {
    expect(names("inner2")).toEqual(["fetch", "shape", "inner"]);
    expect(names("righty")).toEqual(["fetch", "shape", "each"]);
    expect(names("lefty2")).toEqual(["fetch", "shape", "each", "lefty"]);
    expect(names("last")).toEqual(["fetch", "shape", "each", "both"]);
  });
});
