import { describe, expect, it } from "vitest";
import { applyOperation, graph, type CanvasOperation, type EditSuccess } from "@wf/shared/canvas";
import { positionsAfter } from "./layout-positions";

const TEXT = `name: placed
steps:
  - { name: a, type: wait, seconds: 1 }
  - name: loop
    type: foreach
    items: [1]
    steps:
      - { name: inner, type: wait, seconds: 1 }
      - { name: inner2, type: wait, seconds: 1 }
  - { name: b, type: transform, output: "{{ steps.a.output }}" }
`;
const g = graph(TEXT);
const positions = { a: { x: 1, y: 2 }, loop: { x: 3, y: 4 }, inner: { x: 5, y: 6 }, b: { x: 7, y: 8 } };

function after(op: CanvasOperation) {
  const result = applyOperation(TEXT, op);
  if (!result.ok) throw new Error(result.error);
  return positionsAfter(positions, op, result as EditSuccess, g);
}

describe("positionsAfter", () => {
  it("carries a renamed step's place to its new name", () => {
    expect(after({ kind: "renameStep", id: "a", name: "first" })).toEqual({
      first: { x: 1, y: 2 },
      loop: { x: 3, y: 4 },
      inner: { x: 5, y: 6 },
      b: { x: 7, y: 8 },
    });
  });

  it("drops the place of a step that left its box, and of a deleted step with its steps", () => {
    expect(after({ kind: "moveStep", id: "inner", to: {}, index: 0 })).toEqual({
      a: { x: 1, y: 2 },
      loop: { x: 3, y: 4 },
      b: { x: 7, y: 8 },
    });
    expect(after({ kind: "deleteStep", id: "loop" })).toEqual({ a: { x: 1, y: 2 }, b: { x: 7, y: 8 } });
    expect(after({ kind: "unwrap", id: "loop" })).toEqual({ a: { x: 1, y: 2 }, b: { x: 7, y: 8 } });
    expect(after({ kind: "wrapInForeach", ids: ["a"] })).toEqual({
      loop: { x: 3, y: 4 },
      inner: { x: 5, y: 6 },
      b: { x: 7, y: 8 },
    });
  });

  it("leaves the positions alone otherwise", () => {
    expect(after({ kind: "setField", id: "a", key: "seconds", value: 5 })).toBe(positions);
    expect(after({ kind: "deleteStep", id: "inner2" })).toBe(positions);
  });
});
