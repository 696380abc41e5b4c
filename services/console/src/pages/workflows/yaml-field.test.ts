import { describe, expect, it } from "vitest";
import type { FormField } from "./step-form";
import { readYamlText, yamlText } from "./yaml-field";

type Field = Pick<FormField, "kinds" | "required">;
/** A foreach's `items`: a template or a list. */
const items: Field = { kinds: ["string", "array"], required: true };
/** A workflow step's `inputs`: a mapping, optional. */
const inputs: Field = { kinds: ["object"], required: false };

describe("yamlText", () => {
  it("writes a list or a mapping as block YAML, and a whole template as it is", () => {
    expect(yamlText(["a", "{{ item }}", 12, "12"])).toBe('- a\n- "{{ item }}"\n- 12\n- "12"');
    expect(yamlText({ rows: [1, 2], note: "two\nlines" })).toBe("rows:\n  - 1\n  - 2\nnote: |-\n  two\n  lines");
    expect(yamlText("{{ steps.fetch.output.rows }}")).toBe("{{ steps.fetch.output.rows }}");
    expect(yamlText([])).toBe("[]");
    expect(yamlText(undefined)).toBe("");
  });
});

describe("readYamlText", () => {
  it("reads a list, a mapping or a template the field takes, and what yamlText wrote back as it was", () => {
    expect(readYamlText("- a\n- b  # two\n- 3", items)).toEqual({
      kind: "set",
      value: ["a", "b", 3],
    });
    expect(readYamlText("[a, { b: 1 }]", items)).toEqual({
      kind: "set",
      value: ["a", { b: 1 }],
    });
    expect(readYamlText("  {{ steps.fetch.output.rows }}\n", items)).toEqual({
      kind: "set",
      value: "{{ steps.fetch.output.rows }}",
    });
    // Under the comment the box shows from the key's line.
    expect(readYamlText("# the rows\n\n{{ steps.fetch.output.rows }}", items)).toEqual({
      kind: "set",
      value: "{{ steps.fetch.output.rows }}",
    });
    expect(readYamlText("day: today\nlimit: 5", inputs)).toEqual({
      kind: "set",
      value: { day: "today", limit: 5 },
    });
    for (const value of [["a", "{{ item }}", 12, "12", true, null], { rows: [1, 2], note: "two\nlines" }, "{{ x }}"])
      expect(readYamlText(yamlText(value), { kinds: ["any"], required: true })).toEqual({ kind: "set", value });
  });

  it("says what to fix in text that does not parse, or holds a kind the field does not take", () => {
    expect(readYamlText("- a\n- [b", items)).toEqual({
      kind: "problem",
      message: expect.stringMatching(/^Not valid YAML \(line 2\): /),
    });
    expect(readYamlText("a: 1", items)).toEqual({
      kind: "problem",
      message: "Write a string or a list here, not a mapping.",
    });
    expect(readYamlText("- a", inputs)).toEqual({
      kind: "problem",
      message: "Write a mapping here, not a list.",
    });
    expect(readYamlText("# nothing but a comment", inputs)).toEqual({
      kind: "problem",
      message: "Write a mapping here, not null.",
    });
  });

  it("asks for quotes around text holding a template, which YAML reads as mappings or cannot read", () => {
    const any: Field = { kinds: ["any"], required: true };
    // Valid YAML, but its braces are mappings: `{"Big orders": {"{ steps.a.output }": null}}`.
    expect(readYamlText("Big orders: {{ steps.a.output }}", any)).toEqual({
      kind: "problem",
      message:
        'Put text holding a {{ }} template in quotes, or YAML reads its braces as a mapping: "Big orders: {{ steps.a.output }}".',
    });
    expect(readYamlText("- {{ item }}", items)).toEqual({
      kind: "problem",
      message: expect.stringContaining('as a mapping: total: "{{ steps.fetch.output.total }}".'),
    });
    expect(readYamlText("day: today\nlimit: {{ vars.limit }}", inputs)).toEqual({
      kind: "problem",
      message: expect.stringContaining('as a mapping: total: "{{ steps.fetch.output.total }}".'),
    });
    // Not YAML at all: the parser's reason, then the same advice.
    expect(readYamlText("{{ item.id }} costs {{ item.total }}", any)).toEqual({
      kind: "problem",
      message: expect.stringMatching(
        /^Not valid YAML \(line 1\): .+\. Put text holding a \{\{ \}\} template in quotes, .*: "\{\{ item\.id \}\} costs \{\{ item\.total \}\}"\.$/,
      ),
    });
    // Quoted, or alone, a template is read as the string it is.
    expect(readYamlText('"Big orders: {{ steps.a.output }}"', any)).toEqual({
      kind: "set",
      value: "Big orders: {{ steps.a.output }}",
    });
    expect(readYamlText('day: today\nlimit: "{{ vars.limit }}"', inputs)).toEqual({
      kind: "set",
      value: { day: "today", limit: "{{ vars.limit }}" },
    });
  });

  it("removes an emptied optional field, and asks for a required one", () => {
    expect(readYamlText("  \n", inputs)).toEqual({ kind: "remove" });
    expect(readYamlText("", items)).toEqual({
      kind: "problem",
      message: expect.stringMatching(/required/),
    });
  });
});
