import { describe, expect, it } from "vitest";
import { graph, type CanvasNode } from "@wf/shared/canvas";
import { dragOutcome, dropTarget } from "./drop";
import { layoutGraph, type Box } from "./layout";
import { NESTED_WORKFLOW } from "./test-support";

const g = graph(NESTED_WORKFLOW);
const layout = layoutGraph(g);
const box = (id: string): Box => layout.boxes.find((b) => b.id === id)!;
const node = (id: string): CanvasNode => g.nodes.find((n) => n.id === id)!;
/** A point `dy` below the top of a box, at its horizontal middle. */
const at = (id: string, dy: number) => ({ x: box(id).absX + box(id).width / 2, y: box(id).absY + dy });

describe("dropTarget", () => {
  it("counts the steps above the point in the top-level list", () => {
    expect(dropTarget(layout, { x: -500, y: -500 })).toEqual({ list: {}, index: 0 });
    expect(dropTarget(layout, at("fetch", box("fetch").height + 5))).toEqual({ list: {}, index: 1 });
    expect(dropTarget(layout, at("done", box("done").height + 200))).toEqual({ list: {}, index: 4 });
    // Beside the column still counts by height.
    expect(dropTarget(layout, { x: box("done").absX + 2000, y: box("done").absY + 1 })).toEqual({ list: {}, index: 3 });
  });

  it("drops into a foreach below its header, and beside it on its header", () => {
    expect(dropTarget(layout, at("loop", 10))).toEqual({ list: {}, index: 1 });
    expect(dropTarget(layout, at("a", -4))).toEqual({ list: { parent: "loop" }, index: 0 });
    expect(dropTarget(layout, at("b", box("b").height / 2 + 1))).toEqual({ list: { parent: "loop" }, index: 2 });
  });

  it("drops into the branch under the point", () => {
    expect(dropTarget(layout, at("l1", box("l1").height))).toEqual({
      list: { parent: "both", branch: "left" },
      index: 1,
    });
    expect(dropTarget(layout, at("r2", 1))).toEqual({ list: { parent: "both", branch: "right" }, index: 1 });
  });

  it("never offers a step being moved its own lists, nor counts it", () => {
    expect(dropTarget(layout, at("a", 1), "loop")).toEqual({ list: {}, index: 1 });
    expect(dropTarget(layout, at("l1", 1), "both")).toEqual({ list: {}, index: 2 });
    expect(dropTarget(layout, at("done", 1), "fetch")).toEqual({ list: {}, index: 2 });
  });
});

describe("dragOutcome", () => {
  it("places a step that stays in its position, and moves one dragged past a neighbour or into another list", () => {
    expect(dragOutcome(layout, node("done"), { x: box("done").absX + 600, y: box("done").absY + 10 })).toEqual({
      kind: "place",
    });
    expect(dragOutcome(layout, node("a"), at("a", 10))).toEqual({ kind: "place" });
    expect(dragOutcome(layout, node("done"), at("fetch", 1))).toEqual({ kind: "move", target: { list: {}, index: 0 } });
    expect(dragOutcome(layout, node("a"), at("b", box("b").height - 1))).toEqual({
      kind: "move",
      target: { list: { parent: "loop" }, index: 1 },
    });
    expect(dragOutcome(layout, node("fetch"), at("r1", 1))).toEqual({
      kind: "move",
      target: { list: { parent: "both", branch: "right" }, index: 0 },
    });
  });
});
