import { describe, expect, it } from "vitest";
import schema from "@wf/shared/schema/workflow.schema.json";
import type { Schema } from "../../editor/schema-nav";
import { stepForm, type FormField } from "./step-form";

const root = schema as unknown as Schema;
const controls = (fields: FormField[]) => Object.fromEntries(fields.map((f) => [f.path.join("."), f.control]));

describe("stepForm", () => {
  it("gives each field of the step's type the control of its schema type", () => {
    const form = stepForm(root, "llm", { name: "ask", type: "llm", model: "gpt-4o-mini", prompt: "Hi" });
    expect(controls(form.fields)).toEqual({
      description: "text",
      input: "text",
      model: "text",
      prompt: "textarea",
      system: "textarea",
      temperature: "number",
      max_tokens: "integer",
      output_schema: "yaml",
    });
    expect(form.fields.find((f) => f.path[0] === "model")).toMatchObject({ required: true });
    expect(form.fields.find((f) => f.path[0] === "system")).toMatchObject({ required: false });
  });

  it("offers an enum's values in a select, and leaves lists and mappings to the YAML", () => {
    const form = stepForm(root, "code", { name: "c", type: "code", language: "cli", command: ["ls"] });
    const language = form.fields.find((f) => f.path[0] === "language");
    expect(language).toMatchObject({ control: "select", required: true });
    expect(language?.options).toEqual(["python", "javascript", "typescript", "bash", "ruby", "lua", "cli"]);
    expect(controls(form.fields)).toMatchObject({ command: "yaml", network: "checkbox" });
  });

  it("shows a script step its `code` and a cli step its `command`, each required there, never the other", () => {
    const fields = (values: Record<string, unknown>) =>
      Object.fromEntries(
        stepForm(root, "code", { name: "c", type: "code", ...values })
          .fields.filter((f) => f.path[0] === "code" || f.path[0] === "command")
          .map((f) => [f.path[0], f.required]),
      );
    expect(fields({ language: "javascript", code: "return 1;" })).toEqual({ code: true });
    expect(fields({ language: "cli", command: ["ls"] })).toEqual({ command: true });
    const script = stepForm(root, "code", { language: "python", code: "print(1)" }).fields;
    expect(script.find((f) => f.path[0] === "code")).toMatchObject({ control: "textarea" });
    expect(script.find((f) => f.path[0] === "code")?.description).toMatch(/script/);
  });

  it("gives a value that may be a template or a list YAML text, whichever it is now or when unset", () => {
    for (const items of ["{{ vars.rows }}", [1, 2], undefined]) {
      const form = stepForm(root, "foreach", items === undefined ? {} : { items });
      expect(controls(form.fields)).toMatchObject({ items: "yaml", concurrency: "integer" });
      expect(form.fields.find((f) => f.path[0] === "items")).toMatchObject({
        kinds: ["string", "array"],
        required: true,
      });
    }
    const approval = stepForm(root, "wait", { manual_approval: { message: "OK?", timeout: 60 } }).modifiers[3]!;
    expect(approval.fields.find((f) => f.path[1] === "groups")).toMatchObject({ control: "yaml", kinds: ["array"] });
  });

  it("picks the control of a value that may be of several kinds by what it is now", () => {
    expect(controls(stepForm(root, "transform", { output: { a: 1 } }).fields)).toMatchObject({ output: "yaml" });
    expect(stepForm(root, "transform", { output: { a: 1 } }).fields.find((f) => f.path[0] === "output")).toMatchObject({
      kinds: ["any"],
    });
    expect(controls(stepForm(root, "transform", { output: "line 1\nline 2" }).fields)).toMatchObject({
      output: "textarea",
    });
    expect(controls(stepForm(root, "wait", { seconds: 5 }).fields)).toMatchObject({ seconds: "number", until: "text" });
    // Structure has operations of its own.
    expect(controls(stepForm(root, "parallel", {}).fields)).not.toHaveProperty("branches");
    expect(controls(stepForm(root, "foreach", {}).fields)).not.toHaveProperty("steps");
  });

  it("lists every modifier, with the fields of those that are on", () => {
    const form = stepForm(root, "wait", { seconds: 1, retry: { max_attempts: 3 }, condition: "true" });
    expect(form.modifiers.map((m) => [m.modifier, m.on, controls(m.fields)])).toEqual([
      ["condition", true, { condition: "text" }],
      [
        "retry",
        true,
        {
          "retry.max_attempts": "integer",
          "retry.backoff": "select",
          "retry.initial_delay": "number",
          "retry.max_delay": "number",
        },
      ],
      ["timeout", false, {}],
      ["manual_approval", false, {}],
    ]);
    const approval = stepForm(root, "wait", { manual_approval: { message: "OK?", timeout: 60 } }).modifiers[3]!;
    expect(controls(approval.fields)).toEqual({
      "manual_approval.message": "text",
      "manual_approval.timeout": "integer",
      "manual_approval.groups": "yaml",
    });
  });

  it("offers the file's agents for an agent step", () => {
    const form = stepForm(root, "agent", { agent: "support", prompt: "Hi" }, ["support", "sales"]);
    expect(form.fields.find((f) => f.path[0] === "agent")).toMatchObject({
      control: "select",
      options: ["support", "sales"],
      required: true,
    });
  });

  it("has no form for a type the schema does not know", () => {
    expect(stepForm(root, "transfrom", {})).toEqual({ fields: [], modifiers: [] });
  });
});
