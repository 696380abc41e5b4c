import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { hangingIndent, wrapIndents } from "./wrap-indent";

describe("hangingIndent", () => {
  it("starts a line's wrapped rows one step deeper than its text, past its indentation and list dashes", () => {
    expect(
      ["name: w", "  - { name: fetch, type: transform, output: 1 }", "    output: long", "      - - nested", ""].map(
        hangingIndent,
      ),
    ).toEqual([2, 6, 6, 12, 2]);
  });
});

describe("wrapIndents", () => {
  it("styles each line of the ranges drawn, and no other", () => {
    const state = EditorState.create({ doc: "steps:\n  - { name: a }\n  - { name: b }\nend: 1" });
    const styles: [number, string][] = [];
    wrapIndents(state, [{ from: 0, to: 10 }]).between(0, state.doc.length, (from, _to, deco) => {
      styles.push([state.doc.lineAt(from).number, (deco.spec as { attributes: { style: string } }).attributes.style]);
    });
    expect(styles).toEqual([
      [1, "padding-left: calc(6px + 2ch); text-indent: -2ch"],
      [2, "padding-left: calc(6px + 6ch); text-indent: -6ch"],
    ]);
  });
});
