import { describe, expect, it } from "vitest";
import { readSource } from "@wf/shared/canvas";
import { previewTarget } from "./preview-target";

const TEXT = `name: x
steps:
  - { name: fetch, type: transform, output: 1 }
  - name: greet
    type: transform
    condition: 'vars.who != "nobody"'
    output: "Hi {{ vars.who & \\"!\\" }} and {{ steps.fetch.output }}"
  - { name: later, type: transform, output: "{{ steps.greet.output }}" }
  - name: each
    type: foreach
    items: "{{ steps.fetch.output }}"
    steps:
      - name: remind
        type: transform
        output:
          message: >-
            Dear {{ item.name }},
            you owe {{ item.owed }}
`;
const source = readSource(TEXT);
/** The cursor just after the first occurrence of `marker`. */
const after = (marker: string) => TEXT.indexOf(marker) + marker.length;

describe("previewTarget, the expression at the cursor", () => {
  it("is the template the cursor is in, read as YAML reads the value, with the whole field it is part of", () => {
    expect(previewTarget(source, after("vars.who &"))).toEqual({
      expression: 'vars.who & "!"',
      condition: false,
      field: 'Hi {{ vars.who & "!" }} and {{ steps.fetch.output }}',
    });
    expect(previewTarget(source, after("steps.fetch.out"))).toMatchObject({ expression: "steps.fetch.output" });
  });

  it("reads the field of a folded block as the service does: its lines joined by a space", () => {
    expect(previewTarget(source, after("you owe {{ item"))).toEqual({
      expression: "item.owed",
      condition: false,
      field: "Dear {{ item.name }}, you owe {{ item.owed }}",
    });
  });

  it("has no field of its own when the value is the one template: it renders to the expression's value", () => {
    expect(previewTarget(source, after("{{ steps.greet"))).toEqual({
      expression: "steps.greet.output",
      condition: false,
      field: null,
    });
  });

  it("is a condition's whole value", () => {
    expect(previewTarget(source, after("vars.who !="))).toEqual({
      expression: 'vars.who != "nobody"',
      condition: true,
      field: null,
    });
  });

  it("is nothing between templates, in plain text or on a key", () => {
    expect(previewTarget(source, after("}} an"))).toBeNull();
    expect(previewTarget(source, after("Hi"))).toBeNull();
    expect(previewTarget(source, after("conditi"))).toBeNull();
  });
});
