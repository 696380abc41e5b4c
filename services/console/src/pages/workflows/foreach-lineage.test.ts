import { describe, expect, it } from "vitest";
import { graph as canvasGraph } from "@wf/shared/canvas";
import { foreachLineage } from "./foreach-lineage";

const YAML = `name: lineage
steps:
  - { name: top, type: transform, output: 1 }
  - name: outer
    type: foreach
    items: [1]
    steps:
      - name: both
        type: parallel
        branches:
          a:
            - name: inner
              type: foreach
              items: [2]
              steps:
                - { name: deep, type: transform, output: 2 }
          b:
            - { name: side, type: transform, output: 3 }
`;

describe("foreachLineage", () => {
  it("names the foreach steps holding a step, outermost first, passing over parallel branches", () => {
    const graph = canvasGraph(YAML);
    expect(foreachLineage(graph, "deep")).toEqual(["outer", "inner"]);
    expect(foreachLineage(graph, "side")).toEqual(["outer"]);
    expect(foreachLineage(graph, "inner")).toEqual(["outer"]);
    expect(foreachLineage(graph, "top")).toEqual([]);
  });
});
