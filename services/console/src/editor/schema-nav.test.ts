import { describe, expect, it } from "vitest";
import { CODE_LANGUAGES, STEP_TYPES } from "@wf/shared/workflow";
import schema from "@wf/shared/schema/workflow.schema.json";
import { SchemaNav, type Schema } from "./schema-nav";
import { contextAt } from "./yaml-context";

const nav = new SchemaNav(schema as unknown as Schema);

/** Key or value suggestions at the `|` of a text. */
function suggest(text: string): string[] {
  const lines = text.split("\n");
  const lineIndex = lines.findIndex((l) => l.includes("‸"));
  const column = lines[lineIndex]!.indexOf("‸");
  lines[lineIndex] = lines[lineIndex]!.replace("‸", "");
  const ctx = contextAt(lines, lineIndex, column);
  if (!ctx) return [];
  if (ctx.kind === "value") return nav.values(ctx.path, ctx.values, ctx.key!).map((v) => v.value);
  return nav
    .keys(ctx.path, ctx.values)
    .map((k) => k.name)
    .filter((k) => !(k in ctx.values));
}

describe("completion from the workflow JSON Schema", () => {
  it("offers the top-level keys not yet written", () => {
    expect(suggest("name: x\n‸").sort()).toEqual([
      "agents",
      "description",
      "max_cost",
      "steps",
      "triggers",
      "variables",
    ]);
  });

  it("offers the eight step types after `type:` in a step, and the languages after `language:`", () => {
    expect(suggest("name: x\nsteps:\n  - name: a\n    type: ‸").sort()).toEqual([...STEP_TYPES].sort());
    expect(suggest("name: x\nsteps:\n  - name: a\n    type: code\n    language: ‸").sort()).toEqual(
      [...CODE_LANGUAGES].sort(),
    );
  });

  it("offers a step's keys by its type, and only the common ones before the type is known", () => {
    const code = suggest("name: x\nsteps:\n  - name: a\n    type: code\n    ‸");
    expect(code).toEqual(expect.arrayContaining(["language", "code", "network", "retry", "timeout", "condition"]));
    expect(code).not.toContain("prompt");
    const llm = suggest("name: x\nsteps:\n  - name: a\n    type: llm\n    ‸");
    expect(llm).toEqual(expect.arrayContaining(["model", "prompt", "system", "temperature"]));
    expect(llm).not.toContain("language");
    const open = suggest("name: x\nsteps:\n  - ‸");
    expect(open).toEqual(expect.arrayContaining(["name", "type", "retry", "condition", "manual_approval"]));
    expect(open).not.toContain("language");
  });

  it("offers `command` on a cli step only, and `code` on every other language", () => {
    const step = (language: string) => `name: x\nsteps:\n  - name: a\n    type: code\n    language: ${language}\n    ‸`;
    for (const language of CODE_LANGUAGES.filter((l) => l !== "cli")) {
      const keys = suggest(step(language));
      expect(keys, language).toContain("code");
      expect(keys, language).not.toContain("command");
    }
    const cli = suggest(step("cli"));
    expect(cli).toContain("command");
    expect(cli).not.toContain("code");
    // Before the language is written it is not cli (the schema's `else`): `code`, not `command`.
    expect(suggest("name: x\nsteps:\n  - name: a\n    type: code\n    ‸")).not.toContain("command");
    // Required by the language: `command` comes first for cli.
    const required = (text: string, key: string) => {
      const lines = text.split("\n");
      const ctx = contextAt(
        lines.map((l) => l.replace("‸", "")),
        lines.length - 1,
        lines.at(-1)!.indexOf("‸"),
      );
      return nav.keys(ctx!.path, ctx!.values).find((k) => k.name === key)?.required;
    };
    expect(required(step("cli"), "command")).toBe(true);
    expect(required(step("python"), "code")).toBe(true);
  });

  it("offers the keys of modifiers, nested steps and variables, and enum values inside them", () => {
    expect(suggest("name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n    retry:\n      ‸").sort()).toEqual(
      ["backoff", "initial_delay", "max_attempts", "max_delay"],
    );
    expect(
      suggest("name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n    retry:\n      backoff: ‸").sort(),
    ).toEqual(["exponential", "fixed", "linear"]);
    expect(
      suggest(
        "name: x\nsteps:\n  - name: l\n    type: foreach\n    items: [1]\n    steps:\n      - name: b\n        type: transform\n        ‸",
      ),
    ).toContain("output");
    expect(suggest("name: x\nvariables:\n  who:\n    type: ‸").sort()).toEqual([
      "array",
      "boolean",
      "number",
      "object",
      "string",
    ]);
    expect(suggest("name: x\nvariables:\n  who:\n    type: string\n    required: ‸")).toEqual(["true", "false"]);
  });
});
