import { describe, expect, it } from "vitest";
import { deleteStep } from "../canvas";
import { isUnknownStepIssue, parseWorkflow, validateWorkflowText, type WorkflowIssue } from "./index";

function issuesOf(text: string): WorkflowIssue[] {
  const result = parseWorkflow(text);
  if (result.ok) throw new Error("expected the workflow to be invalid");
  return result.errors;
}

const READER = `name: x
steps:
  - { name: fetch, type: transform, output: [1, 2] }
  - name: each
    type: foreach
    items: "{{ steps.fetch.output }}"
    steps:
      - { name: double, type: transform, output: "{{ item * 2 }}" }
  - name: report
    type: transform
    condition: steps.fetch.output != null
    output:
      rows: "{{ steps.fetch.output }} and {{ steps.double.output }}"
`;

describe("a reference to a step the workflow does not have", () => {
  it("is a problem at the reference's line and column, naming the close step", () => {
    const issues = issuesOf(
      `name: x\nsteps:\n  - { name: fetch, type: transform, output: 1 }\n  - name: show\n    type: transform\n    output: "{{ steps.fecth.output }}"\n`,
    );
    expect(issues).toEqual([
      {
        path: "steps[1].output",
        line: 6,
        column: 17,
        message:
          "unknown step `fecth` (did you mean `fetch`?): no step of the workflow has that name (a step deleted or renamed?); read one of fetch, show",
      },
    ]);
    expect(isUnknownStepIssue(issues[0]!)).toBe(true);
    expect(isUnknownStepIssue(issues[0]!, ["fecth"])).toBe(true);
    expect(isUnknownStepIssue(issues[0]!, ["fetch"])).toBe(false);
  });

  it("is found in conditions, nested values, agents and backquoted names; not in code, prose or another name's field", () => {
    const issues = issuesOf(`name: x
agents:
  - { name: helper, model: m, instructions: "{{ steps.gone.output }}" }
steps:
  - name: a
    type: transform
    condition: steps.missing.output = 1
    output:
      deep: ["{{ steps.\`odd-name\`.output }}"]
  - name: b
    type: code
    language: javascript
    code: return steps.nothere;
  - name: c
    type: transform
    output: "about steps.prose, then {{ vars.steps.x }} and {{ $steps.y }}"
`);
    expect(issues.map((i) => [i.path, i.line, i.message.split(":")[0]])).toEqual([
      ["agents[0].instructions", 3, "unknown step `gone`"],
      ["steps[0].condition", 7, "unknown step `missing`"],
      ["steps[0].output.deep[0]", 9, "unknown step `odd-name`"],
    ]);
  });

  it("is not a problem for a step defined later or nested anywhere in the file", () => {
    expect(parseWorkflow(READER).ok).toBe(true);
  });

  it("is what deleting a step others read leaves: the delete is made, each reader then a problem at its line", () => {
    const result = deleteStep(READER, { id: "fetch" });
    if (!result.ok) throw new Error(result.error);
    const after = validateWorkflowText(result.text);
    expect(after.ok).toBe(false);
    const errors = after.ok ? [] : after.errors;
    expect(errors.map((e) => [e.line, e.path])).toEqual([
      [5, "steps[0].items"],
      [10, "steps[1].condition"],
      [12, "steps[1].output.rows"],
    ]);
    expect(errors.every((e) => isUnknownStepIssue(e, ["fetch"]))).toBe(true);
    expect(result.text.split("\n")[4]).toContain("steps.fetch");
    // The canvas's own warnings say the same.
    expect(result.warnings.map((w) => w.range.startLine)).toEqual([5, 10, 12]);
  });
});
