import { describe, expect, it } from "vitest";
import { isDuplicateStepIssue } from "./semantic";
import { validateWorkflowText } from "./validate";

describe("isDuplicateStepIssue", () => {
  it("tells a step name that an earlier step has from the other problems", () => {
    const result = validateWorkflowText(`name: x
steps:
  - { name: a, type: transform, output: "{{ steps.gone.output }}" }
  - name: f
    type: foreach
    items: [1]
    steps:
      - { name: a, type: wait, seconds: 1 }
  - { name: f, type: wiat }
`);
    const errors = result.ok ? [] : result.errors;
    expect(errors.map((issue) => [issue.path, isDuplicateStepIssue(issue)])).toEqual([
      ["steps[0].output", false],
      ["steps[1].steps[0].name", true],
      ["steps[2].name", true],
      ["steps[2].type", false],
    ]);
  });
});
