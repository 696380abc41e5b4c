import { describe, expect, it } from "vitest";
import { contextAt } from "./yaml-context";

/** The context at the `|` of a text, the `|` removed. */
function at(text: string) {
  const lines = text.split("\n");
  const lineIndex = lines.findIndex((l) => l.includes("‸"));
  const column = lines[lineIndex]!.indexOf("‸");
  lines[lineIndex] = lines[lineIndex]!.replace("‸", "");
  return contextAt(lines, lineIndex, column);
}

const keysOf = (ctx: ReturnType<typeof at>) => ctx?.path.map((s) => ("item" in s ? "[]" : s.key));

describe("contextAt, reading where the cursor is from indentation", () => {
  it("is at the top level on an unindented line", () => {
    const ctx = at("name: x\nste‸");
    expect(ctx).toMatchObject({ kind: "key", word: "ste", from: 0, indent: 0, values: { name: "x" } });
    expect(keysOf(ctx)).toEqual([]);
  });

  it("is in a step's mapping after `- `, and knows the step's other values below", () => {
    const ctx = at("name: x\nsteps:\n  - na‸\n    type: code\n    language: python\n  - name: other\n    type: wait");
    expect(keysOf(ctx)).toEqual(["steps", "[]"]);
    expect(ctx).toMatchObject({ kind: "key", word: "na", indent: 4, values: { type: "code", language: "python" } });
  });

  it("is in a step's mapping on a later line, with the values above and below it", () => {
    const ctx = at(
      "name: x\nsteps:\n  - name: a\n    type: code\n    lan‸\n    code: |\n      print(1)\n  - name: b\n    type: wait",
    );
    expect(keysOf(ctx)).toEqual(["steps", "[]"]);
    expect(ctx?.values).toEqual({ name: "a", type: "code", code: "|" });
  });

  it("reads a value being typed after `key: `", () => {
    const ctx = at("name: x\nsteps:\n  - name: a\n    type: tr‸");
    expect(ctx).toMatchObject({ kind: "value", key: "type", word: "tr", from: 10, values: { name: "a" } });
    expect(keysOf(ctx)).toEqual(["steps", "[]"]);
  });

  it("follows nested steps, a modifier's mapping and the values of each level", () => {
    const ctx = at(
      "name: x\nsteps:\n  - name: loop\n    type: foreach\n    items: [1]\n    steps:\n      - name: inner\n        type: code\n        retry:\n          back‸",
    );
    expect(keysOf(ctx)).toEqual(["steps", "[]", "steps", "[]", "retry"]);
    const loop = ctx!.path[2]!;
    expect("key" in loop && loop.values).toMatchObject({ type: "foreach", name: "loop" });
  });

  it("follows compact sequences, whose `- ` sits at the owner's column", () => {
    const ctx = at("name: x\nsteps:\n- name: a\n  ty‸");
    expect(keysOf(ctx)).toEqual(["steps", "[]"]);
    expect(ctx?.values).toEqual({ name: "a" });
  });

  it("offers nothing inside a block scalar or a flow collection", () => {
    expect(at("name: x\nsteps:\n  - name: a\n    code: |\n      impo‸")).toBeNull();
    expect(at("name: x\nvariables:\n  who: { ty‸")).toBeNull();
  });

  it("is in a variable's definition under `variables`", () => {
    const ctx = at("name: x\nvariables:\n  who:\n    type: string\n    requ‸");
    expect(keysOf(ctx)).toEqual(["variables", "who"]);
    expect(ctx?.values).toEqual({ type: "string" });
  });
});
