import { insertNewlineAndIndent } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import { indentUnit } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { yamlIndent } from "./yaml-indent";

const WORKFLOW = `name: w
steps:
  - name: shape
    type: transform
    output:
      count: "{{ $count(items) }}"  # count them
      label: "a # not a comment" # but this is
    flow: {a: 1}   # flow map
    # a whole-line comment
  - name: script # named
    type: code
    code: | # the script
      print(1) # not a YAML comment
`;

/** The indentation Enter gives the new line at the end of the line holding `marker` (`language`: YAML's own). */
function enterAfter(marker: string, language: "ours" | "yaml" = "ours"): number {
  const at = WORKFLOW.indexOf("\n", WORKFLOW.indexOf(marker));
  let state = EditorState.create({
    doc: WORKFLOW,
    selection: { anchor: at },
    extensions: [yaml(), indentUnit.of("  "), language === "ours" ? yamlIndent : []],
  });
  insertNewlineAndIndent({ state, dispatch: (tr) => (state = tr.state) });
  const line = state.doc.lineAt(state.selection.main.head);
  return line.text.length - line.text.trimStart().length;
}

describe("Enter after a line that ends in a comment", () => {
  it("indents the new line as after the same line without its comment", () => {
    expect(enterAfter("count them")).toBe(6);
    expect(enterAfter("but this is")).toBe(6);
    expect(enterAfter("flow map")).toBe(4);
    expect(enterAfter("a whole-line comment")).toBe(4);
    // After a list item's key, the item's next key; after a block scalar's header, its text.
    expect(enterAfter("# named")).toBe(4);
    expect(enterAfter("the script")).toBe(6);
  });

  it("leaves lines without a comment, and a # in a block scalar, to the YAML language", () => {
    for (const marker of ["type: transform", "output:\n", "print(1)", "name: w"])
      expect([marker, enterAfter(marker)]).toEqual([marker, enterAfter(marker, "yaml")]);
    // Its own answer after a comment that ends a block was the block around it's: the cases above are real.
    expect([enterAfter("but this is", "yaml"), enterAfter("flow map", "yaml")]).toEqual([4, 2]);
  });
});
