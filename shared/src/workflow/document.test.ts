import { describe, expect, it } from "vitest";
import { WfError } from "../errors";
import { formatIssues, parseWorkflow, type WorkflowDocument } from "./index";

// Odd but valid: 4-space list indent, extra spaces after colons, a flow mapping with uneven
// spacing, blank lines, comments everywhere, a flow list of flow mappings, no final newline.
const SOURCE = `# Ticket triage, laid out by hand
name:   triage        # odd spacing kept
variables:
  ticket_id: {type: string,   required: true}

steps:
    # fetch the rows first
    - name: fetch
      type: code
      language: python
      code: |
        print('{"rows": []}')

    - name: classify       # the LLM bit
      type: llm
      model:    gpt-4o-mini
      prompt: 'Classify {{ steps.fetch.output }}'

    - name: old_step
      type: wait
      seconds: 5

    - name: loop
      type: foreach
      items: "{{ steps.fetch.output.rows }}"
      steps:
        - name: inner
          type: transform
          output: "{{ item }}"   # per item
    - name: both
      type: parallel
      branches:
        left:  [ { name: l1, type: transform, output: "{{ steps.classify.output }}" } ]
    - name: done
      type: transform
      condition: steps.classify.status = 'COMPLETED'
      output: { c: "{{ steps.classify.output }}" }  # end`;

function open(text: string): WorkflowDocument {
  const result = parseWorkflow(text);
  if (!result.ok) throw new Error(formatIssues(result.errors));
  return result.document;
}

function codeOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof WfError ? err.code : "not a WfError";
  }
  return undefined;
}

describe("WorkflowDocument", () => {
  it("prints an unedited document byte for byte", () => {
    expect(open(SOURCE).toString()).toBe(SOURCE);
  });

  it("keeps comments and untouched lines through set, insert, remove and rename", () => {
    const doc = open(SOURCE);
    doc.setStepField("classify", "temperature", 0.2);
    doc.setStepField("inner", "output", { id: "{{ item.id }}" });
    doc.insertStep({ name: "pause", type: "wait", seconds: 3 }, { after: "classify" });
    doc.removeStep("old_step");
    doc.renameStep("classify", "triage");

    expect(doc.toString()).toBe(`# Ticket triage, laid out by hand
name:   triage        # odd spacing kept
variables:
  ticket_id: {type: string,   required: true}

steps:
    # fetch the rows first
    - name: fetch
      type: code
      language: python
      code: |
        print('{"rows": []}')

    - name: triage       # the LLM bit
      type: llm
      model:    gpt-4o-mini
      prompt: 'Classify {{ steps.fetch.output }}'
      temperature: 0.2
    - name: pause
      type: wait
      seconds: 3

    - name: loop
      type: foreach
      items: "{{ steps.fetch.output.rows }}"
      steps:
        - name: inner
          type: transform
          output:
            id: "{{ item.id }}"   # per item
    - name: both
      type: parallel
      branches:
        left:  [ { name: l1, type: transform, output: "{{ steps.triage.output }}" } ]
    - name: done
      type: transform
      condition: steps.triage.status = 'COMPLETED'
      output: { c: "{{ steps.triage.output }}" }  # end`);

    for (const comment of SOURCE.match(/#.*$/gm) ?? []) expect(doc.toString()).toContain(comment);

    const result = doc.toWorkflow();
    if (!result.ok) throw new Error(formatIssues(result.errors));
    const steps = result.workflow.steps;
    expect(steps.map((s) => s.name)).toEqual(["fetch", "triage", "pause", "loop", "both", "done"]);
    expect(steps[1]).toMatchObject({ type: "llm", temperature: 0.2 });
    expect(steps[2]).toEqual({ name: "pause", type: "wait", seconds: 3 });
    const loop = steps[3];
    expect(loop?.type === "foreach" && loop.steps[0]).toEqual({
      name: "inner",
      type: "transform",
      output: { id: "{{ item.id }}" },
    });
    expect(steps[5]?.condition).toBe("steps.triage.status = 'COMPLETED'");
  });

  it("edits steps in flow mappings and flow lists", () => {
    const doc = open(SOURCE);
    doc.setStepField("l1", "description", "left side");
    doc.insertStep({ name: "l2", type: "wait", seconds: 1 }, { after: "l1" });
    doc.insertStep({ name: "l0", type: "wait", seconds: 1 }, { before: "l1" });
    doc.deleteStepField("done", "condition");
    expect(doc.toString()).toContain(
      `        left:  [ { name: l0, type: wait, seconds: 1 }, { name: l1, type: transform, output: "{{ steps.classify.output }}", description: left side }, { name: l2, type: wait, seconds: 1 } ]\n`,
    );
    expect(doc.toString()).toContain(
      `    - name: done\n      type: transform\n      output: { c: "{{ steps.classify.output }}" }  # end`,
    );
    doc.deleteStepField("l1", "description");
    doc.removeStep("l2");
    doc.removeStep("l0");
    expect(doc.toString()).toContain(
      `        left:  [ { name: l1, type: transform, output: "{{ steps.classify.output }}" } ]\n`,
    );
    expect(doc.toWorkflow().ok).toBe(true);
  });

  it("inserts before a step above its comments, at the end, and into a foreach or a branch", () => {
    const doc = open(SOURCE);
    doc.insertStep({ name: "first", type: "wait", seconds: 1 }, { before: "fetch" });
    doc.insertStep({ name: "inner2", type: "wait", seconds: 2 }, { parent: { step: "loop" } });
    doc.insertStep({ name: "last", type: "transform", output: "{{ 1 }}" });
    doc.insertStep({ name: "r1", type: "wait", seconds: 1 }, { parent: { step: "both", branch: "left" } });
    const text = doc.toString();
    expect(text).toContain(
      `steps:\n    - name: first\n      type: wait\n      seconds: 1\n    # fetch the rows first\n    - name: fetch\n`,
    );
    expect(text).toContain(
      `          output: "{{ item }}"   # per item\n        - name: inner2\n          type: wait\n          seconds: 2\n    - name: both\n`,
    );
    expect(text.endsWith(`# end\n    - name: last\n      type: transform\n      output: "{{ 1 }}"\n`)).toBe(true);
    const result = doc.toWorkflow();
    expect(result.ok && result.workflow.steps.map((s) => s.name)).toEqual([
      "first",
      "fetch",
      "classify",
      "old_step",
      "loop",
      "both",
      "done",
      "last",
    ]);
  });

  it("replaces a block value and deletes the first key of a list item without losing the dash", () => {
    const doc = open(SOURCE);
    doc.setStepField("fetch", "code", "print(1)\nprint(2)\n");
    doc.setStepField("fetch", "retry", { max_attempts: 3 });
    expect(doc.toString()).toContain(
      `    - name: fetch\n      type: code\n      language: python\n      code: |\n        print(1)\n        print(2)\n      retry:\n        max_attempts: 3\n\n    - name: classify`,
    );
    doc.deleteStepField("old_step", "seconds");
    doc.setStepField("old_step", "until", "2030-01-01T00:00:00Z");
    expect(doc.toString()).toContain(`    - name: old_step\n      type: wait\n      until: 2030-01-01T00:00:00Z\n`);
  });

  it("renames references written with backticks, and writes backticks for names with `-`", () => {
    const doc = open(`name: x
steps:
  - name: fetch
    type: wait
    seconds: 1
  - name: use
    type: transform
    output: "{{ steps.\`fetch\`.output & steps.fetcher.output & steps.fetch.output }}"
  - name: fetcher
    type: wait
    seconds: 1
`);
    doc.renameStep("fetch", "get-rows");
    expect(doc.toString()).toContain(
      'output: "{{ steps.`get-rows`.output & steps.fetcher.output & steps.`get-rows`.output }}"',
    );
    expect(doc.toString()).toContain("  - name: get-rows\n");
  });

  it("refuses edits that cannot be right", () => {
    const doc = open(SOURCE);
    expect(codeOf(() => doc.setStepField("nope", "timeout", 1))).toBe("NOT_FOUND");
    expect(codeOf(() => doc.renameStep("fetch", "classify"))).toBe("CONFLICT");
    expect(codeOf(() => doc.renameStep("fetch", "1st"))).toBe("VALIDATION_FAILED");
    expect(codeOf(() => doc.insertStep({ name: "inner", type: "wait", seconds: 1 }))).toBe("CONFLICT");
    expect(codeOf(() => doc.deleteStepField("fetch", "type"))).toBe("VALIDATION_FAILED");
    expect(
      codeOf(() =>
        doc.insertStep({ name: "x", type: "wait", seconds: 1 }, { parent: { step: "both", branch: "right" } }),
      ),
    ).toBe("NOT_FOUND");
    expect(doc.toString()).toBe(SOURCE);
  });

  it("reports through toWorkflow what an edit broke", () => {
    const doc = open(SOURCE);
    doc.setStepField("old_step", "seconds", "five");
    const result = doc.toWorkflow();
    expect(!result.ok && result.errors).toEqual([
      { path: "steps[2].seconds", line: 21, column: 16, message: 'must be a number, not the string "five"' },
    ]);
  });
});
