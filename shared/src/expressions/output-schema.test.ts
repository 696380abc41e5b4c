import { describe, expect, it } from "vitest";
import { MAX_OUTPUT_SCHEMA_CHARS } from "../workflow/output-schema-bounds";
import { OutputSchema } from "./output-schema";
import { checkBySchema, schemasKept } from "./output-schemas.mjs";

/** A schema whose JSON is `chars` long: one property, its description padded (Ajv compiles it at once). */
function schemaOf(chars: number, tag = ""): Record<string, unknown> {
  const schema = { type: "object", properties: { n: { type: "integer", description: tag } } };
  schema.properties.n.description = tag + "d".repeat(chars - JSON.stringify(schema).length);
  return schema;
}

describe("an output schema's patterns", () => {
  it("match as JSON Schema says, in pattern and patternProperties", async () => {
    const schema = await OutputSchema.compile(
      {
        type: "object",
        properties: { code: { type: "string", pattern: "^[A-Z]{3}-\\d+$" } },
        patternProperties: { "^x-": { type: "number" } },
      },
      "o1",
    );
    expect(await schema.check('{"code": "ABC-12", "x-n": 1}')).toEqual({
      ok: true,
      value: { code: "ABC-12", "x-n": 1 },
    });
    expect(await schema.check('{"code": "abc-12", "x-n": "one"}')).toEqual({
      ok: false,
      problems: '/code must match pattern "^[A-Z]{3}-\\d+$"; /x-n must be number',
    });
    expect(await schema.check("```json\n{}\n```")).toEqual({ ok: true, value: {} });
    expect(await schema.check("{")).toEqual({ ok: false, problems: "the answer is not JSON" });
  });

  it("run on the linear-time engine: an answer cannot make one backtrack, and one needing backtracking is refused", async () => {
    // On JavaScript's engine this answer takes about 0.2 s a check, doubling with each "a" more (36: minutes); the
    // refusal below is what tells the engines apart here, without a test that could hang.
    const schema = await OutputSchema.compile({ type: "string", pattern: "^(a+)+$" }, "o1");
    expect(await schema.check(JSON.stringify(`${"a".repeat(24)}!`))).toEqual({
      ok: false,
      problems: '(root) must match pattern "^(a+)+$"',
    });
    await expect(OutputSchema.compile({ type: "string", pattern: "^(a)\\1$" }, "o1")).rejects.toThrow(
      /^`output_schema` cannot be used: .*pattern \/\^\(a\)\\1\$\/ cannot run on the linear-time engine \(RE2: no backreferences, no lookaround\)/,
    );
  });
});

describe("an output schema's bounds", () => {
  it("refuses a schema longer than the limit before compiling it, saying so", async () => {
    await expect(OutputSchema.compile(schemaOf(MAX_OUTPUT_SCHEMA_CHARS + 1), "o1")).rejects.toThrow(
      "`output_schema` is 16,385 characters of JSON, more than the 16,384 allowed: describe the answer with a smaller schema",
    );
    const longest = await OutputSchema.compile(schemaOf(MAX_OUTPUT_SCHEMA_CHARS), "o1");
    expect(await longest.check('{"n": 1}')).toEqual({ ok: true, value: { n: 1 } });
  });

  it("takes two owners' schemas of the same $id, each checking by its own, and a schema naming itself by it", async () => {
    const a = await OutputSchema.compile({ $id: "answer", type: "object", required: ["a"] }, "o1");
    const b = await OutputSchema.compile({ $id: "answer", type: "object", required: ["b"] }, "o2");
    expect(await a.check('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(await b.check('{"a": 1}')).toEqual({ ok: false, problems: "(root) must have required property 'b'" });
    const tree = { $id: "tree", type: "object", properties: { kids: { type: "array", items: { $ref: "tree" } } } };
    expect(await (await OutputSchema.compile(tree, "o1")).check('{"kids": [{"kids": [1]}]}')).toEqual({
      ok: false,
      problems: "/kids/0/kids/0 must be object",
    });
  });

  it("keeps compiled schemas within their characters: one owner's many large ones push out its own, not another's", () => {
    const warm = JSON.stringify({ type: "object", required: ["quiet"] });
    expect(checkBySchema({ schema: warm, answer: '{"quiet": 1}', owner: "quiet" })).toEqual({
      ok: true,
      value: { quiet: 1 },
    });
    // More distinct schemas than are kept, 4.8 MB of JSON in all: more than their room.
    for (let i = 0; i < 300; i++) {
      checkBySchema({ schema: JSON.stringify(schemaOf(MAX_OUTPUT_SCHEMA_CHARS, `${i}`)), owner: "flood" });
    }
    expect(schemasKept().has(warm)).toBe(true);
    expect(schemasKept().chars).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});
