import { describe, expect, it } from "vitest";
import { graph } from "@wf/shared/canvas";
import { shownGraph, shownNodeAt, type Read } from "./canvas-sync";

const VALID = "name: x\nsteps:\n  - { name: a, type: wait, seconds: 1 }\n  - { name: b, type: wait, seconds: 1 }\n";

const BLOCKS = `name: x
steps:
  - name: a
    type: wait
    seconds: 1
  - name: b
    type: wait
    seconds: 1
  - name: c
    type: wait
    seconds: 1
`;

/** `text` read after `good`, the last valid text. */
function after(good: string, text: string): Read {
  return { current: graph(text), text, good: { graph: graph(good), text: good } };
}

/**
 * The steps of the last valid drawing that each problem of `text` is on: `[node, other]`, the node `after <step>` for
 * a problem in a new step after it.
 */
function marks(good: string, text: string): (string | undefined)[][] {
  const shown = shownGraph(after(good, text));
  expect(shown.nodes.map((n) => n.id)).toEqual(graph(good).nodes.map((n) => n.id));
  return shown.issues.map((issue) => [issue.after === undefined ? issue.node : `after ${issue.after}`, issue.other]);
}

describe("shownGraph", () => {
  it("draws a valid text as it is", () => {
    const g = graph(VALID);
    expect(shownGraph({ current: g, text: VALID, good: { graph: g, text: VALID } })).toBe(g);
  });

  it("keeps the last valid graph while the text is not valid, with the problems on its steps", () => {
    const broken = VALID.replace("name: b, type: wait", "name: b, type: wiat").replace("name: a,", "name: a2,");
    const shown = shownGraph(after(VALID, broken));
    expect(shown.nodes.map((n) => n.id)).toEqual(["a", "b"]);
    // Two lines edited: the problem's line does not tell the step, its step's id does.
    expect(shown.issues.map((i) => i.node)).toEqual(["b"]);
    expect(shown.issues[0]?.message).toMatch(/wiat/);
    // One line edited: the step renamed there holds the problem.
    const renamed = VALID.replace("name: a,", "name: a2,").replace(
      "type: wait, seconds: 1 }\n  - ",
      "type: wiat, seconds: 1 }\n  - ",
    );
    expect(shownGraph(after(VALID, renamed)).issues.map((i) => i.node)).toEqual(["a"]);
  });

  it("marks both steps of a duplicate name, as the last valid drawing has them", () => {
    expect(marks(BLOCKS, BLOCKS.replace("name: b", "name: a"))).toEqual([["b", "a"]]);
    // The earlier step renamed: it is `a` in the drawing, whatever its name now.
    expect(marks(BLOCKS, BLOCKS.replace("name: a", "name: b"))).toEqual([["b", "a"]]);
    // A step added with a taken name is not drawn yet: the problem is after the step it follows, and on the step that
    // has the name.
    expect(marks(BLOCKS, `${BLOCKS}  - name: b\n    type: wait\n    seconds: 2\n`)).toEqual([["after c", "b"]]);
  });

  it("puts a YAML syntax error on the step that held its line in the last valid text", () => {
    const inB = [["b", undefined]];
    // A field indented deeper, or less deep, than the others of its step.
    expect(marks(BLOCKS, BLOCKS.replace("    seconds: 1\n  - name: c", "      seconds: 1\n  - name: c"))).toEqual([
      ...inB,
      ...inB,
    ]);
    expect(marks(BLOCKS, BLOCKS.replace("  - name: b\n    type", "  - name: b\n   type"))).toEqual([
      ...inB,
      ...inB,
      ...inB,
    ]);
    // A line added inside a step.
    expect(marks(BLOCKS, BLOCKS.replace("    type: wait\n", "    type: wait\n      retry: 2\n"))).toEqual([
      ["a", undefined],
      ["a", undefined],
    ]);
    // Lines after the edit, moved by it: without its `- name:` line, `c`'s fields are `b`'s again.
    expect(marks(BLOCKS, BLOCKS.replace("  - name: c\n", ""))).toEqual([
      ["c", undefined],
      ["c", undefined],
    ]);
  });

  it("puts an error in lines added between two steps by their indentation: in the step above, or after it", () => {
    const inB = [["b", undefined]];
    const afterB = [["after b", undefined]];
    const beforeC = (lines: string) => BLOCKS.replace("  - name: c", `${lines}  - name: c`);
    // Deeper than the step's `-`: a field after its last one, the error on the added line or on the one above it.
    expect(marks(BLOCKS, beforeC("    retry: 2: 3\n"))).toEqual(inB);
    expect(marks(BLOCKS, beforeC("      retry: 2\n"))).toEqual([...inB, ...inB]);
    // At the `-` of the steps: a new step, not drawn yet, however deep its own lines go.
    expect(marks(BLOCKS, beforeC("  - name: d\n      type: wait\n"))).toEqual([...afterB, ...afterB]);
    expect(marks(BLOCKS, beforeC("  - name: d\n    type wait: x: y\n"))).toEqual(afterB);
    // Typed in a blank line between the steps.
    expect(marks(BLOCKS.replace("  - name: c", "\n  - name: c"), beforeC("  - name: d: e\n"))).toEqual(afterB);
    // At the end of the text, where an unclosed quote or bracket is reported: the last line written tells.
    expect(marks(BLOCKS, `${BLOCKS}    retry: {\n`)).toEqual([["c", undefined]]);
    expect(marks(BLOCKS, `${BLOCKS}  - name: "d\n`)).toEqual([["after c", undefined]]);
    expect(marks(BLOCKS, `${BLOCKS}  - name: "d`)).toEqual([["after c", undefined]]);
  });

  it("goes out from the innermost step by indentation: a nested step, a new one beside it, its container", () => {
    const nested = BLOCKS.replace(
      "  - name: c\n",
      '  - name: each\n    type: foreach\n    items: [1, 2]\n    steps:\n      - name: show\n        type: transform\n        output: "{{ item }}"\n  - name: c\n',
    );
    const beforeC = (line: string) => nested.replace("  - name: c", `${line}\n  - name: c`);
    expect(marks(nested, beforeC("        timeout: 1: 2"))).toEqual([["show", undefined]]);
    expect(marks(nested, beforeC("      - name: d: e"))).toEqual([["after show", undefined]]);
    expect(marks(nested, beforeC("    timeout: 1: 2"))).toEqual([["each", undefined]]);
    expect(marks(nested, beforeC("  - name: d: e"))).toEqual([["after each", undefined]]);
    // An item at a step's `-` with its lines going on below: in it.
    expect(marks(BLOCKS, BLOCKS.replace("    type: wait\n", "  - name: d: e\n    type: wait\n"))).toEqual([
      ["a", undefined],
    ]);
  });

  it("marks each mistake made in several places since the last valid text, each by its own edit", () => {
    // A new step written after `a`, its type misspelt, and `c`'s misspelt too, `b` between them unchanged: the new
    // step's lines, only added, go by their indentation (after `a`); `c`'s by its line.
    const both = BLOCKS.replace("  - name: b\n", "  - name: d\n    type: wiat\n    seconds: 1\n  - name: b\n").replace(
      "name: c\n    type: wait",
      "name: c\n    type: wiat",
    );
    expect(marks(BLOCKS, both)).toEqual([
      ["after a", undefined],
      ["c", undefined],
    ]);
  });

  it("draws what it could read of a text that was never valid", () => {
    const text = "name: x\nsteps:\n  - { name: a, type: wiat }\n";
    const broken = graph(text);
    expect(shownGraph({ current: broken, text, good: null })).toBe(broken);
  });
});

describe("shownNodeAt", () => {
  it("is the step drawn where the cursor is: in the last valid drawing while the text is not valid", () => {
    const duplicate = BLOCKS.replace("name: b", "name: a");
    const at = (text: string, before: string) => shownNodeAt(after(BLOCKS, text), text.indexOf(before));
    expect(at(duplicate, "a\n    type: wait\n    seconds: 1\n  - name: c")).toBe("b");
    expect(at(BLOCKS.replace("name: a", "name: b"), "b\n    type")).toBe("a");
    // In the lines of a new step, which is not drawn: none; in a field added after a step's last one: that step.
    const added = BLOCKS.replace("  - name: c", "  - name: d\n    type: wait: x\n  - name: c");
    expect(shownNodeAt(after(BLOCKS, added), added.indexOf("type: wait: x"))).toBeUndefined();
    const field = BLOCKS.replace("  - name: c", "    retry: 2: 3\n  - name: c");
    expect(shownNodeAt(after(BLOCKS, field), field.indexOf("retry"))).toBe("b");
    const valid = BLOCKS.replace("seconds: 1\n  - name: c", "seconds: 2\n  - name: c");
    expect(shownNodeAt({ current: graph(valid), text: valid, good: null }, valid.indexOf("seconds: 2"))).toBe("b");
  });
});
