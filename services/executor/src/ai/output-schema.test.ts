import { describe, expect, it } from "vitest";
import { checkAnswer, compileOutputSchema } from "./output-schema";

describe("an output schema's patterns", () => {
  it("match as JSON Schema says, in pattern and patternProperties", () => {
    const validate = compileOutputSchema({
      type: "object",
      properties: { code: { type: "string", pattern: "^[A-Z]{3}-\\d+$" } },
      patternProperties: { "^x-": { type: "number" } },
    });
    expect(checkAnswer('{"code": "ABC-12", "x-n": 1}', validate)).toEqual({
      ok: true,
      value: { code: "ABC-12", "x-n": 1 },
    });
    expect(checkAnswer('{"code": "abc-12", "x-n": "one"}', validate)).toEqual({
      ok: false,
      problems: '/code must match pattern "^[A-Z]{3}-\\d+$"; /x-n must be number',
    });
  });

  it("run on the linear-time engine: an answer cannot make one backtrack, and one needing backtracking is refused", () => {
    // On JavaScript's engine this answer takes about 0.2 s a check, doubling with each "a" more (36: minutes); the
    // refusal below is what tells the engines apart here, without a test that could hang.
    const validate = compileOutputSchema({ type: "string", pattern: "^(a+)+$" });
    expect(checkAnswer(JSON.stringify(`${"a".repeat(24)}!`), validate)).toEqual({
      ok: false,
      problems: '(root) must match pattern "^(a+)+$"',
    });
    expect(() => compileOutputSchema({ type: "string", pattern: "^(a)\\1$" })).toThrow(
      /pattern \/\^\(a\)\\1\$\/ cannot run on the linear-time engine \(RE2: no backreferences, no lookaround\)/,
    );
  });
});
