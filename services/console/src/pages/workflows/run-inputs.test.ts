import { describe, expect, it } from "vitest";
import type { VariableDef } from "@wf/shared/workflow";
import { initialText, readInputs, textsFromRun } from "./run-inputs";

const VARS: Record<string, VariableDef> = {
  who: { type: "string", required: true },
  count: { type: "number", required: false, default: 3 },
  loud: { type: "boolean", required: false },
  tags: { type: "array", required: false, default: ["a"] },
  order: { type: "object", required: false },
};

const start = () => Object.fromEntries(Object.entries(VARS).map(([name, def]) => [name, initialText(def)]));

describe("textsFromRun", () => {
  it("fills each declared variable from a run's, and reads back to the same inputs", () => {
    const ran = {
      who: "Ada",
      count: 7,
      loud: false,
      tags: ["x", "y"],
      order: { id: 9, lines: [{ sku: "k".repeat(80) }] },
      gone: 1,
    };
    const { texts, undeclared } = textsFromRun(VARS, start(), ran);
    expect(texts.tags).toBe('["x","y"]');
    expect(texts.order).toContain("\n"); // longer than a line: pretty-printed
    expect(undeclared).toEqual(["gone"]);
    const { gone: _gone, ...declared } = ran;
    expect(readInputs(VARS, texts)).toEqual({ inputs: declared, errors: {} });
  });

  it("keeps a field the run had no value for, and shows a value of another type for the submit's check", () => {
    const { texts } = textsFromRun(VARS, { ...start(), who: "typed" }, { count: "many", loud: { no: 1 } });
    expect(texts).toMatchObject({ who: "typed", count: "many", loud: '{"no":1}', tags: '["a"]' });
    expect(readInputs(VARS, texts).errors).toEqual({ count: "must be a number", loud: "must be true or false" });
  });

  it("writes a string variable's non-string value as JSON", () => {
    expect(textsFromRun(VARS, start(), { who: { first: "Ada" } }).texts.who).toBe('{"first":"Ada"}');
    expect(textsFromRun(VARS, start(), { who: null }).texts.who).toBe("null");
  });
});
