import { describe, expect, it } from "vitest";
import { readSource } from "@wf/shared/canvas";
import { expressionScopeAt } from "./expression-scope";
import { previewContext, type KnownData } from "./preview-context";
import { previewTarget } from "./preview-target";

const TEXT = `name: x
steps:
  - { name: fetch, type: transform, output: 1 }
  - name: greet
    type: transform
    condition: 'vars.who != "nobody"'
    output: "Hi {{ vars.who & \\"!\\" }} and {{ steps.fetch.output }}"
  - { name: later, type: transform, output: "{{ steps.greet.output }}" }
`;
const source = readSource(TEXT);
/** The cursor just after the first occurrence of `marker`. */
const after = (marker: string) => TEXT.indexOf(marker) + marker.length;

describe("previewTarget, the expression at the cursor", () => {
  it("is the template the cursor is in, read as YAML reads the value", () => {
    expect(previewTarget(source, after("vars.who &"))).toEqual({
      expression: 'vars.who & "!"',
      condition: false,
    });
    expect(previewTarget(source, after("steps.fetch.out"))).toMatchObject({ expression: "steps.fetch.output" });
  });

  it("is a condition's whole value", () => {
    expect(previewTarget(source, after("vars.who !="))).toEqual({
      expression: 'vars.who != "nobody"',
      condition: true,
    });
  });

  it("is nothing between templates, in plain text or on a key", () => {
    expect(previewTarget(source, after("}} an"))).toBeNull();
    expect(previewTarget(source, after("Hi"))).toBeNull();
    expect(previewTarget(source, after("conditi"))).toBeNull();
  });
});

describe("previewContext, what an expression is previewed on", () => {
  const known: KnownData = {
    steps: {
      fetch: { output: 1, status: "COMPLETED", duration: 3, error: null },
      greet: { output: "hi", status: "COMPLETED", duration: 4, error: null },
    },
    vars: { who: "Ada" },
    execution: null,
  };

  it("holds the known results of the steps before the expression's step only, and what a run is known to have", () => {
    expect(previewContext(expressionScopeAt(source, after("steps.fetch.out")), known)).toEqual({
      steps: { fetch: known.steps.fetch },
      vars: { who: "Ada" },
    });
    expect(previewContext(expressionScopeAt(source, after("steps.greet.out")), known).steps).toEqual(known.steps);
  });
});
