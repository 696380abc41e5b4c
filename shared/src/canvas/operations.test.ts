import { describe, expect, it } from "vitest";
import { isUnknownStepIssue } from "../workflow/semantic";
import { validateWorkflowText } from "../workflow/validate";
import {
  addStep,
  applyOperation,
  deleteStep,
  graph,
  moveStep,
  removeField,
  renameStep,
  setCollection,
  setField,
  setLanguage,
  toggleModifier,
  unwrap,
  wrapInForeach,
  wrapInParallel,
  type EditResult,
  type EditSuccess,
} from "./index";

// Laid out by hand: 4-space list indent, odd spacing, blank lines between some steps, comments
// above, beside and inside steps, every quoting style, a flow list, and no final newline.
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
      prompt: 'Classify {{ steps.fetch.output }} (steps.fetch is not read here)'

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

function ok(result: EditResult): EditSuccess {
  if (!result.ok) throw new Error(result.error);
  const validated = validateWorkflowText(result.text);
  // A delete leaves what read the deleted step as problems at their lines (the test says which); nothing else may be
  // wrong.
  const others = validated.ok ? [] : validated.errors.filter((e) => !isUnknownStepIssue(e));
  if (others.length > 0) throw new Error(others.map((e) => e.message).join("\n"));
  return result;
}

/** The source with `from` replaced by `to`, which must occur once. */
function replaced(from: string, to: string): string {
  expect(SOURCE.split(from).length).toBe(2);
  return SOURCE.replace(from, () => to);
}

describe("addStep", () => {
  it("writes a new step in the list's indentation, between blank-line separated steps", () => {
    const result = ok(addStep(SOURCE, { type: "wait", index: 1 }));
    const added = "    - name: step_8\n      type: wait\n      seconds: 1\n\n";
    expect(result.text).toBe(replaced("\n    - name: classify", "\n" + added + "    - name: classify"));
    expect(result.id).toBe("step_8");
    const at = SOURCE.indexOf("    - name: classify");
    expect(result.edits).toEqual([{ from: at, to: at, insert: added }]);
    expect(result.changed).toEqual([{ from: at, to: at + added.length }]);
  });

  it("gives a container a first step of its own, and keeps a file without a final newline so", () => {
    const result = ok(addStep(SOURCE, { type: "foreach", name: "rows" }));
    expect(result.text).toBe(
      SOURCE +
        '\n\n    - name: rows\n      type: foreach\n      items: []\n      steps:\n        - name: step_8\n          type: transform\n          output: "{{ item }}"',
    );
  });

  it("writes one line of flow text into a flow list", () => {
    const result = ok(addStep(SOURCE, { type: "code", list: { parent: "both", branch: "left" }, index: 0 }));
    expect(result.text).toBe(
      replaced("left:  [ {", 'left:  [ { name: step_8, type: code, language: python, code: print("hello") }, {'),
    );
  });

  it("refuses what it cannot write", () => {
    expect(addStep(SOURCE, { type: "agent" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/define an agent first/),
    });
    expect(addStep(SOURCE, { type: "wait", index: 9 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/outside the top-level steps/),
    });
    expect(addStep(SOURCE, { type: "wait", name: "fetch" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/already exists/),
    });
    expect(addStep(SOURCE, { type: "wait", list: { parent: "nope" } })).toMatchObject({ ok: false });
    expect(addStep("name: x\nsteps: [\n", { type: "wait" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/syntax errors/),
    });
  });
});

describe("deleteStep", () => {
  it("takes the step's comment lines and one separating blank line with it", () => {
    const result = ok(deleteStep(SOURCE, { id: "fetch" }));
    expect(result.text).toBe(
      replaced(
        `    # fetch the rows first\n    - name: fetch\n      type: code\n      language: python\n      code: |\n        print('{"rows": []}')\n\n`,
        "",
      ),
    );
  });

  it("deletes a step others read, and reports each reference left dangling", () => {
    const result = ok(deleteStep(SOURCE, { id: "classify" }));
    expect(
      result.warnings.map((w) => [w.message, w.range.startLine, result.text.slice(w.range.start, w.range.end)]),
    ).toEqual([
      ["step `l1` still reads `steps.classify`, which no longer exists", 24, "steps.classify"],
      ["step `done` still reads `steps.classify`, which no longer exists", 27, "steps.classify"],
      ["step `done` still reads `steps.classify`, which no longer exists", 28, "steps.classify"],
    ]);
  });

  it("keeps a file without a final newline so", () => {
    expect(ok(deleteStep(SOURCE, { id: "done" })).text).toBe(SOURCE.slice(0, SOURCE.indexOf("\n    - name: done")));
  });

  it("refuses to empty a list", () => {
    expect(deleteStep(SOURCE, { id: "inner" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/only step of the steps of `loop`.*unwrap `loop`/),
    });
    expect(deleteStep("name: x\nsteps:\n  - { name: a, type: wait, seconds: 1 }\n", { id: "a" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/only step/),
    });
  });
});

describe("renameStep", () => {
  it("renames the step and every reference in templates and conditions, leaving prose alone", () => {
    const result = ok(renameStep(SOURCE, { id: "classify", name: "triage-step" }));
    expect(result.text).toBe(
      SOURCE.replace("- name: classify ", "- name: triage-step ")
        .replaceAll("{{ steps.classify.output }}", "{{ steps.`triage-step`.output }}")
        .replace("condition: steps.classify.status", "condition: steps.`triage-step`.status"),
    );
    expect(result.id).toBe("triage-step");
    const fetch = ok(renameStep(SOURCE, { id: "fetch", name: "load" }));
    expect(fetch.text).toContain("'Classify {{ steps.load.output }} (steps.fetch is not read here)'");
    expect(fetch.edits.map((e) => e.insert)).toEqual(["load", "steps.load", "steps.load"]);
  });

  it("quotes a name that would read as something else", () => {
    expect(ok(renameStep(SOURCE, { id: "inner", name: "true" })).text).toContain('- name: "true"\n');
  });

  it("refuses a name that is taken or not a name", () => {
    expect(renameStep(SOURCE, { id: "fetch", name: "loop" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/already exists/),
    });
    expect(renameStep(SOURCE, { id: "fetch", name: "9lives" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not a valid step name/),
    });
  });
});

describe("moveStep", () => {
  it("moves a step with its comments into a foreach, indented for it", () => {
    const result = ok(moveStep(SOURCE, { id: "fetch", to: { parent: "loop" }, index: 1 }));
    expect(result.text).toBe(
      SOURCE.replace(
        `    # fetch the rows first\n    - name: fetch\n      type: code\n      language: python\n      code: |\n        print('{"rows": []}')\n\n`,
        "",
      ).replace(
        '"{{ item }}"   # per item\n',
        `"{{ item }}"   # per item\n        # fetch the rows first\n        - name: fetch\n          type: code\n          language: python\n          code: |\n            print('{"rows": []}')\n`,
      ),
    );
  });

  it("turns a flow list into a block list, items kept as written, to take a block step", () => {
    const result = ok(moveStep(SOURCE, { id: "loop", to: { parent: "both", branch: "left" }, index: 1 }));
    expect(result.text).toContain(`      branches:
        left:
            - { name: l1, type: transform, output: "{{ steps.classify.output }}" }
            - name: loop
              type: foreach
              items: "{{ steps.fetch.output.rows }}"
              steps:
                - name: inner
                  type: transform
                  output: "{{ item }}"   # per item
    - name: done`);
  });

  it("moves a flow item out as a block item, and reorders within a list", () => {
    const two = replaced("left:  [ {", "left:  [ { name: l0, type: wait, seconds: 1 }, {");
    expect(ok(moveStep(two, { id: "l1", to: {}, index: 0 })).text).toBe(
      SOURCE.replace(
        "steps:\n    # fetch",
        'steps:\n    - { name: l1, type: transform, output: "{{ steps.classify.output }}" }\n\n    # fetch',
      ).replace(
        'left:  [ { name: l1, type: transform, output: "{{ steps.classify.output }}" } ]',
        "left:  [ { name: l0, type: wait, seconds: 1 } ]",
      ),
    );
    const reordered = ok(moveStep(SOURCE, { id: "done", to: {}, index: 2 }));
    expect(
      graph(reordered.text)
        .nodes.filter((n) => n.group === undefined)
        .map((n) => n.id),
    ).toEqual(["fetch", "classify", "done", "loop", "both"]);
  });

  it("does nothing for the same place and refuses a move into itself", () => {
    expect(ok(moveStep(SOURCE, { id: "classify", to: {}, index: 1 })).edits).toEqual([]);
    expect(moveStep(SOURCE, { id: "loop", to: { parent: "loop" }, index: 0 })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/into itself/),
    });
  });
});

describe("wrapInForeach, wrapInParallel and unwrap", () => {
  it("wraps adjacent steps, comments and blank lines included, indenting the new list as the file does", () => {
    const result = ok(wrapInForeach(SOURCE, { ids: ["classify", "fetch"], name: "each_row" }));
    expect(result.text).toBe(
      replaced(
        `    # fetch the rows first
    - name: fetch
      type: code
      language: python
      code: |
        print('{"rows": []}')

    - name: classify       # the LLM bit
      type: llm
      model:    gpt-4o-mini
      prompt: 'Classify {{ steps.fetch.output }} (steps.fetch is not read here)'
`,
        `    - name: each_row
      type: foreach
      items: []
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
            prompt: 'Classify {{ steps.fetch.output }} (steps.fetch is not read here)'
`,
      ),
    );
    expect(wrapInForeach(SOURCE, { ids: ["fetch", "loop"] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/next to each other/),
    });
  });

  it("makes each step a branch named after it", () => {
    const result = ok(wrapInParallel(SOURCE, { ids: ["l1"] }));
    expect(result.text).toBe(
      replaced(
        "left:  [ { name: l1,",
        "left:  [ { name: step_8, type: parallel, branches: { l1: [ { name: l1,",
      ).replace('output }}" } ]', 'output }}" } ] } } ]'),
    );
  });

  it("unwraps a container into its place, its steps kept as written", () => {
    expect(ok(unwrap(SOURCE, { id: "loop" })).text).toBe(
      replaced(
        `    - name: loop
      type: foreach
      items: "{{ steps.fetch.output.rows }}"
      steps:
        - name: inner
          type: transform
          output: "{{ item }}"   # per item
`,
        `    - name: inner
      type: transform
      output: "{{ item }}"   # per item
`,
      ),
    );
    expect(ok(unwrap(SOURCE, { id: "both" })).text).toBe(
      replaced(
        `    - name: both
      type: parallel
      branches:
        left:  [ { name: l1, type: transform, output: "{{ steps.classify.output }}" } ]
`,
        `    - { name: l1, type: transform, output: "{{ steps.classify.output }}" }\n`,
      ),
    );
    expect(unwrap(SOURCE, { id: "fetch" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/holds no steps/),
    });
  });
});

describe("setField and removeField", () => {
  it("changes only the value's own span, keeping its quoting and what surrounds it", () => {
    const model = ok(setField(SOURCE, { id: "classify", key: "model", value: "gpt-5" }));
    expect(model.text).toBe(replaced("model:    gpt-4o-mini", "model:    gpt-5"));
    expect(model.edits).toEqual([
      { from: SOURCE.indexOf("gpt-4o-mini"), to: SOURCE.indexOf("gpt-4o-mini") + 11, insert: "gpt-5" },
    ]);
    expect(ok(setField(SOURCE, { id: "classify", key: "prompt", value: "It's {{ vars.x }}" })).text).toContain(
      "prompt: 'It''s {{ vars.x }}'\n",
    );
    expect(ok(setField(SOURCE, { id: "fetch", key: "code", value: "print(1)\nprint(2)\n" })).text).toContain(
      "      code: |\n        print(1)\n        print(2)\n\n",
    );
  });

  it("quotes a string that would read as a number, and writes numbers plain", () => {
    expect(ok(setField(SOURCE, { id: "classify", key: "model", value: "12" })).text).toContain('model:    "12"\n');
    expect(ok(setField(SOURCE, { id: "inner", key: "output", value: 12 })).text).toContain("output: 12   # per item\n");
  });

  it("adds a field at the end of a block step, before a container's list, or inside flow text", () => {
    expect(ok(setField(SOURCE, { id: "classify", key: "temperature", value: 0.2 })).text).toContain(
      "(steps.fetch is not read here)'\n      temperature: 0.2\n\n",
    );
    expect(ok(setField(SOURCE, { id: "loop", key: "concurrency", value: 3 })).text).toContain(
      'rows }}"\n      concurrency: 3\n      steps:\n',
    );
    expect(ok(setField(SOURCE, { id: "l1", key: "timeout", value: 30 })).text).toContain(
      'output: "{{ steps.classify.output }}", timeout: 30 } ]',
    );
    expect(ok(setField(SOURCE, { id: "l1", key: "description", value: "two\nlines" })).text).toContain(
      ', description: "two\\nlines" } ]',
    );
    expect(ok(setField(SOURCE, { id: "done", key: "description", value: "one\ntwo\n" })).text).toBe(
      SOURCE + "\n      description: |\n        one\n        two",
    );
  });

  it("sets a field inside a modifier, and refuses what would break the workflow", () => {
    const retried = ok(toggleModifier(SOURCE, { id: "fetch", modifier: "retry" })).text;
    expect(ok(setField(retried, { id: "fetch", key: ["retry", "max_attempts"], value: 5 })).text).toContain(
      "retry: { max_attempts: 5, backoff: exponential }",
    );
    const bogus = setField(SOURCE, { id: "l1", key: "type", value: "bogus" });
    expect(bogus).toMatchObject({
      ok: false,
      error: expect.stringMatching(/would leave the workflow invalid: unknown type `bogus`/),
    });
    expect(bogus.ok ? [] : bogus.issues.map((i) => i.line)).toEqual([29]);
    expect(setField(SOURCE, { id: "fetch", key: "name", value: "x" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/rename the step/),
    });
  });

  it("removes a field with its comment lines, in block and flow text", () => {
    const text = SOURCE.replace(
      "      type: foreach\n",
      "      type: foreach\n      # at most two at once\n      concurrency: 2 # why two\n",
    );
    expect(ok(removeField(text, { id: "loop", key: "concurrency" })).text).toBe(SOURCE);
    const flow = SOURCE.replace(
      'output: "{{ steps.classify.output }}" }',
      'output: "{{ steps.classify.output }}", timeout: 5 }',
    );
    expect(ok(removeField(flow, { id: "l1", key: "timeout" })).text).toBe(SOURCE);
    expect(removeField(SOURCE, { id: "l1", key: "output" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/missing required key `output`/),
    });
    expect(removeField(SOURCE, { id: "l1", key: "type" })).toMatchObject({
      ok: false,
      error: "every step needs a `type`",
    });
  });
});

describe("setLanguage", () => {
  const added = ok(addStep(SOURCE, { type: "code", index: 1 }));
  const starter = '      language: python\n      code: |\n        print("hello")\n';

  it("gives a new step's untouched starter script the new language's, which runs there", () => {
    expect(added.text).toContain("    - name: step_8\n      type: code\n" + starter);
    const js = ok(setLanguage(added.text, { id: "step_8", language: "javascript" }));
    expect(js.text).toBe(
      added.text.replace(starter, () => '      language: javascript\n      code: |\n        return "hello";\n'),
    );
    expect(js.edits.length).toBe(2);
    const ruby = ok(setLanguage(js.text, { id: "step_8", language: "ruby" }));
    expect(ruby.text).toContain('      language: ruby\n      code: |\n        puts "hello"\n');
    const bash = ok(setLanguage(ruby.text, { id: "step_8", language: "bash" }));
    expect(bash.text).toContain("      language: bash\n      code: |\n        echo hello\n");
  });

  it("does the same in flow text", () => {
    const flow = ok(addStep(SOURCE, { type: "code", list: { parent: "both", branch: "left" }, index: 0 }));
    expect(ok(setLanguage(flow.text, { id: "step_8", language: "typescript" })).text).toContain(
      '{ name: step_8, type: code, language: typescript, code: return "hello"; }',
    );
  });

  it("swaps a starter script for a cli step's starter command, and back", () => {
    const cli = ok(setLanguage(added.text, { id: "step_8", language: "cli" }));
    expect(cli.text).toBe(added.text.replace(starter, () => "      language: cli\n      command: [echo, hello]\n"));
    expect(ok(setLanguage(cli.text, { id: "step_8", language: "lua" })).text).toBe(
      added.text.replace(starter, () => starter.replace("python", "lua")),
    );
  });

  it("never replaces a script or a command someone wrote", () => {
    const mine = starter.replace("hello", "hello, world");
    expect(
      ok(
        setLanguage(
          added.text.replace(starter, () => mine),
          { id: "step_8", language: "javascript" },
        ),
      ).text,
    ).toBe(added.text.replace(starter, () => mine.replace("python", "javascript")));
    expect(ok(setLanguage(SOURCE, { id: "fetch", language: "bash" })).text).toBe(
      replaced("language: python", "language: bash"),
    );
    const ls = added.text.replace(starter, () => "      language: cli\n      command: [ls]\n");
    expect(setLanguage(ls, { id: "step_8", language: "python" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/a python step needs `code`/),
    });
  });
});

describe("setCollection", () => {
  it("writes a list on block lines below the key, keeping the comment on the key's line", () => {
    const text = SOURCE.replace('rows }}"\n', 'rows }}"   # the rows\n');
    const result = ok(
      setCollection(text, { id: "loop", key: "items", value: ["a", "{{ x }}", 12, "12", "two\nlines"] }),
    );
    expect(result.text).toBe(
      text.replace(
        '      items: "{{ steps.fetch.output.rows }}"   # the rows\n',
        '      items:   # the rows\n        - a\n        - "{{ x }}"\n        - 12\n        - "12"\n        - |-\n          two\n          lines\n',
      ),
    );
    expect(graph(result.text).nodes.map((n) => n.id)).toEqual(graph(SOURCE).nodes.map((n) => n.id));
  });

  it("adds a field holding a list or a mapping to a block step, above a container's steps", () => {
    expect(ok(setCollection(SOURCE, { id: "loop", key: "input", value: { rows: [1, 2], by: "day" } })).text).toBe(
      replaced(
        'rows }}"\n      steps:\n',
        'rows }}"\n      input:\n        rows:\n          - 1\n          - 2\n        by: day\n      steps:\n',
      ),
    );
    // At the end of a text without a final newline, which it still lacks.
    expect(ok(setCollection(SOURCE, { id: "done", key: "input", value: ["x"] })).text).toBe(
      SOURCE + "\n      input:\n        - x",
    );
  });

  it("writes one line of flow text in a step written in flow style", () => {
    expect(ok(setCollection(SOURCE, { id: "l1", key: "output", value: ["a", { b: 1 }, "two\nlines"] })).text).toBe(
      replaced(
        '{ name: l1, type: transform, output: "{{ steps.classify.output }}" }',
        '{ name: l1, type: transform, output: [ a, { b: 1 }, "two\\nlines" ] }',
      ),
    );
    expect(ok(setCollection(SOURCE, { id: "l1", key: "input", value: { rows: [] } })).text).toBe(
      replaced(
        'output: "{{ steps.classify.output }}" }',
        'output: "{{ steps.classify.output }}", input: { rows: [] } }',
      ),
    );
  });

  it("replaces a mapping in the style it is written in, and only its own lines", () => {
    // Flow text with items stays one line of flow text, its comment after it.
    expect(ok(setCollection(SOURCE, { id: "done", key: "output", value: { c: 1, d: [2, 3] } })).text).toBe(
      replaced('output: { c: "{{ steps.classify.output }}" }  # end', "output: { c: 1, d: [ 2, 3 ] }  # end"),
    );
    const block = replaced(
      '      output: { c: "{{ steps.classify.output }}" }  # end',
      '      output:   # what it hands on\n        # the class\n        c: "{{ steps.classify.output }}"\n        n: 1   # one\n      # n is for later',
    );
    expect(ok(setCollection(block, { id: "done", key: "output", value: { rows: ["r"], note: "kept" } })).text).toBe(
      block.replace(
        '        c: "{{ steps.classify.output }}"\n        n: 1   # one\n',
        "        rows:\n          - r\n        note: kept\n",
      ),
    );
    expect(ok(setCollection(block, { id: "done", key: "output", value: {} })).text).toBe(
      block.replace(
        '      output:   # what it hands on\n        # the class\n        c: "{{ steps.classify.output }}"\n        n: 1   # one\n',
        "      output: {}   # what it hands on\n        # the class\n",
      ),
    );
  });

  it("sets a list inside a modifier's mapping", () => {
    const gated = ok(toggleModifier(SOURCE, { id: "fetch", modifier: "manual_approval" })).text;
    const groups = [
      {
        name: "rows",
        title: "Rows",
        items: "{{ steps.fetch.output.rows }}",
        columns: [{ key: "id", title: "Id", type: "string" }],
      },
    ];
    expect(ok(setCollection(gated, { id: "fetch", key: ["manual_approval", "groups"], value: groups })).text).toBe(
      gated.replace(
        "        timeout: 3600\n",
        '        timeout: 3600\n        groups:\n          - name: rows\n            title: Rows\n            items: "{{ steps.fetch.output.rows }}"\n            columns:\n              - key: id\n                title: Id\n                type: string\n',
      ),
    );
  });

  it("is undone by removeField, byte for byte, in block and flow text", () => {
    for (const [id, key] of [
      ["loop", "input"],
      ["done", "input"],
      ["l1", "input"],
      ["classify", "input"],
    ] as const) {
      const set = ok(setCollection(SOURCE, { id, key, value: [{ a: 1 }, "b"] }));
      expect(ok(removeField(set.text, { id, key })).text).toBe(SOURCE);
    }
  });

  it("refuses what the schema does not allow, and the structure's keys", () => {
    expect(setCollection(SOURCE, { id: "loop", key: "items", value: { a: 1 } })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/would leave the workflow invalid/),
    });
    expect(setCollection(SOURCE, { id: "loop", key: "steps", value: [] })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/`steps` is the foreach's list/),
    });
  });
});

describe("toggleModifier", () => {
  it("adds each modifier's default block and takes it away again, byte for byte", () => {
    for (const id of ["fetch", "classify", "loop", "inner", "l1", "done"]) {
      for (const modifier of ["retry", "timeout", "manual_approval"] as const) {
        const on = ok(toggleModifier(SOURCE, { id, modifier }));
        expect(
          graph(on.text)
            .nodes.find((n) => n.id === id)
            ?.badges.map((b) => b.kind),
        ).toContain(modifier);
        expect(ok(toggleModifier(on.text, { id, modifier })).text).toBe(SOURCE);
      }
    }
    expect(ok(toggleModifier(SOURCE, { id: "done", modifier: "condition" })).text).toBe(
      replaced("      condition: steps.classify.status = 'COMPLETED'\n", ""),
    );
    expect(ok(toggleModifier(SOURCE, { id: "done", modifier: "manual_approval" })).text).toBe(
      SOURCE + "\n      manual_approval:\n        message: Continue?\n        timeout: 3600",
    );
  });
});

describe("applyOperation", () => {
  it("runs an operation given as data", () => {
    expect(applyOperation(SOURCE, { kind: "renameStep", id: "inner", name: "row" })).toEqual(
      renameStep(SOURCE, { id: "inner", name: "row" }),
    );
  });
});
