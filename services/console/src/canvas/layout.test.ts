import { describe, expect, it } from "vitest";
import { graph } from "@wf/shared/canvas";
import { NESTED_WORKFLOW } from "./test-support";
import { layoutGraph, STEP_HEIGHT, STEP_WIDTH, structureKey, type Box, type CanvasLayout } from "./layout";

function chain(n: number): string {
  const steps = Array.from(
    { length: n },
    (_, i) =>
      `  - name: s${i + 1}\n    type: transform\n    output: "{{ ${i === 0 ? "vars" : `steps.s${i}.output`} }}"\n`,
  );
  return `name: long\nsteps:\n${steps.join("")}`;
}

function box(layout: CanvasLayout, id: string): Box {
  const found = layout.boxes.find((b) => b.id === id);
  if (!found) throw new Error(`no box ${id}`);
  return found;
}

const inside = (inner: Box, outer: Box): boolean =>
  inner.absX >= outer.absX &&
  inner.absY >= outer.absY &&
  inner.absX + inner.width <= outer.absX + outer.width &&
  inner.absY + inner.height <= outer.absY + outer.height;

describe("layoutGraph", () => {
  it("lays a list out as one column, top to bottom, in its order", () => {
    const layout = layoutGraph(graph(chain(4)));
    const boxes = layout.boxes;
    expect(boxes.map((b) => [b.id, b.kind, b.parent, b.width, b.height])).toEqual(
      ["s1", "s2", "s3", "s4"].map((id) => [id, "step", undefined, STEP_WIDTH, STEP_HEIGHT]),
    );
    expect(new Set(boxes.map((b) => b.x)).size).toBe(1);
    boxes.slice(1).forEach((b, i) => expect(b.y).toBeGreaterThan(boxes[i]!.y + STEP_HEIGHT));
    expect(layout.width).toBe(STEP_WIDTH);
    expect(layout.height).toBe(boxes[3]!.y + STEP_HEIGHT);
  });

  it("draws a foreach around its steps and a parallel's branches side by side, parents first", () => {
    const layout = layoutGraph(graph(NESTED_WORKFLOW));
    expect(layout.boxes.map((b) => [b.id, b.kind, b.parent ?? "-"])).toEqual([
      ["fetch", "step", "-"],
      ["loop", "container", "-"],
      ["a", "step", "loop"],
      ["b", "step", "loop"],
      ["both", "container", "-"],
      ["both/left", "branch", "both"],
      ["l1", "step", "both/left"],
      ["both/right", "branch", "both"],
      ["r1", "step", "both/right"],
      ["r2", "step", "both/right"],
      ["done", "step", "-"],
    ]);
    for (const child of layout.boxes.filter((b) => b.parent))
      expect(inside(child, box(layout, child.parent!))).toBe(true);
    // The container's header is the step itself: its steps start below it.
    expect(box(layout, "a").y).toBeGreaterThanOrEqual(STEP_HEIGHT);
    expect(box(layout, "b").y).toBeGreaterThan(box(layout, "a").y);
    const left = box(layout, "both/left");
    const right = box(layout, "both/right");
    expect(left.y).toBe(right.y);
    expect(right.x).toBeGreaterThanOrEqual(left.x + left.width);
    expect(left.height).toBe(right.height);
    // Top-level steps never overlap.
    const top = layout.boxes.filter((b) => !b.parent);
    top.slice(1).forEach((b, i) => expect(b.absY).toBeGreaterThan(top[i]!.absY + top[i]!.height));
  });

  it("puts a step a person placed where they put it, and grows its container to hold it", () => {
    const auto = layoutGraph(graph(NESTED_WORKFLOW));
    const layout = layoutGraph(graph(NESTED_WORKFLOW), {
      positions: { done: { x: 900, y: -40 }, b: { x: 400, y: 300 }, a: { x: -50, y: 0 } },
    });
    expect(box(layout, "done")).toMatchObject({ x: 900, y: -40, absX: 900, absY: -40 });
    expect(box(layout, "b")).toMatchObject({ x: 400, y: 300 });
    const loop = box(layout, "loop");
    expect(loop.width).toBeGreaterThanOrEqual(400 + STEP_WIDTH);
    expect(loop.height).toBeGreaterThanOrEqual(300 + STEP_HEIGHT);
    expect(inside(box(layout, "b"), loop)).toBe(true);
    // Held inside its box, below the header.
    expect(box(layout, "a").x).toBeGreaterThan(0);
    expect(box(layout, "a").y).toBeGreaterThanOrEqual(STEP_HEIGHT);
    // Steps nobody placed stay where the layout puts them.
    expect(box(layout, "fetch").y).toBe(box(auto, "fetch").y);
    expect(box(layout, "fetch").x).toBe(box(layout, "both").x + (box(layout, "both").width - STEP_WIDTH) / 2);
    expect(layout.width).toBe(900 + STEP_WIDTH);
  });

  it("makes room for a run's facts and the breakpoint gutter", () => {
    const plain = box(layoutGraph(graph(chain(1))), "s1");
    const run = box(layoutGraph(graph(chain(1)), { overlay: true, gutter: true }), "s1");
    expect(run.width).toBeGreaterThan(plain.width);
    expect(run.height).toBeGreaterThan(plain.height);
  });

  it("tells where each list's steps are, for dropping into it", () => {
    const layout = layoutGraph(graph(NESTED_WORKFLOW));
    expect(layout.lists.map((l) => [l.list, l.owner ?? "-", l.depth, l.items.map((i) => i.id)])).toEqual([
      [{}, "-", 0, ["fetch", "loop", "both", "done"]],
      [{ parent: "loop" }, "loop", 1, ["a", "b"]],
      [{ parent: "both", branch: "left" }, "both", 2, ["l1"]],
      [{ parent: "both", branch: "right" }, "both", 2, ["r1", "r2"]],
    ]);
    const loop = box(layout, "loop");
    const area = layout.lists[1]!;
    expect(area).toMatchObject({ x: loop.absX, width: loop.width });
    expect(area.y).toBeGreaterThan(loop.absY);
    expect(area.y + area.height).toBe(loop.absY + loop.height);
    expect(area.items[0]!.mid).toBe(box(layout, "a").absY + STEP_HEIGHT / 2);
  });

  it("keys a graph by what the layout reads: its lists, not what the steps say", () => {
    const key = structureKey(graph(NESTED_WORKFLOW));
    expect(structureKey(graph(NESTED_WORKFLOW.replace("seconds: 1 }\n", "seconds: 9, timeout: 3 }\n")))).toBe(key);
    expect(structureKey(graph(NESTED_WORKFLOW.replace("name: done", "name: finish")))).not.toBe(key);
    expect(
      structureKey(graph(NESTED_WORKFLOW.replace("      - { name: b, type: transform, output: 2 }\n", ""))),
    ).not.toBe(key);
  });

  it("lays out 200 steps", () => {
    const g = graph(chain(200));
    const started = performance.now();
    const layout = layoutGraph(g);
    const ms = performance.now() - started;
    console.log(`[canvas layout] 200 steps: ${ms.toFixed(1)} ms`);
    expect(layout.boxes).toHaveLength(200);
  });
});
