import { describe, expect, it } from "vitest";
import { expressionScopeAt } from "./expression-scope";

const TEXT = `name: x
variables:
  ticket_id: { type: string, required: true, description: The ticket }
  limit: { type: number, default: 3 }
steps:
  - { name: fetch, type: transform, output: 1 }
  - name: each
    type: foreach
    items: [1, 2]
    steps:
      - { name: shape, type: transform, output: "{{ item }}" }
      - name: gated
        type: transform
        manual_approval:
          message: ok?
          timeout: 60
          groups:
            - { name: rows, title: Rows, items: [], columns: [] }
        output: "{{ approval.rows }}"
  - { name: last, type: transform, output: "{{ steps.fetch.output }}" }
`;
const at = (marker: string) => expressionScopeAt(TEXT, TEXT.indexOf(marker));

describe("expressionScopeAt, what an expression at a place of the workflow reads", () => {
  it("names the variables with their type and description", () => {
    expect(at("{{ steps.fetch").variables).toEqual([
      { name: "ticket_id", detail: "string, required", info: "The ticket" },
      { name: "limit", detail: "number" },
    ]);
  });

  it("names the steps that run before the expression's step, and no later one", () => {
    expect(at("{{ steps.fetch").steps.map((s) => s.name)).toEqual(["fetch", "each"]);
    expect(at("{{ item }}").steps).toEqual([{ name: "fetch", detail: "transform" }]);
    expect(at("{{ approval.rows").steps.map((s) => s.name)).toEqual(["fetch", "shape"]);
  });

  it("knows item inside a foreach and the approval groups of a gated step", () => {
    expect(at("{{ item }}")).toMatchObject({
      inForeach: true,
      foreach: [{ name: "each", steps: [] }],
      approvalGroups: null,
    });
    expect(at("{{ approval.rows")).toMatchObject({
      inForeach: true,
      foreach: [{ name: "each", steps: ["shape"] }],
      approvalGroups: ["rows"],
    });
    expect(at("{{ steps.fetch")).toMatchObject({ inForeach: false, foreach: [], approvalGroups: null });
  });

  it("still reads a text with a mistake elsewhere", () => {
    const broken = `${TEXT}  - { name: oops, type: nope }\n`;
    const scope = expressionScopeAt(broken, broken.indexOf("{{ steps.fetch"));
    expect(scope.steps.map((s) => s.name)).toEqual(["fetch", "each"]);
    expect(scope.variables).toHaveLength(2);
  });
});
