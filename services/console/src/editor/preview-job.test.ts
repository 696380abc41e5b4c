import { describe, expect, it } from "vitest";
import { PREVIEW_LINES, previewOf, SECRETS_NOT_PREVIEWED } from "./preview-job";

const context = {
  steps: {
    fetch: {
      output: { rows: Array.from({ length: 40 }, (_, i) => ({ id: i, title: `row ${i}` })), note: "x".repeat(300) },
      status: "COMPLETED",
      duration: 12,
      error: null,
    },
  },
  vars: { who: "Ada" },
  execution: { id: "e1", workflowName: "greet" },
};
const preview = (expression: string, condition = false) => previewOf({ expression, condition, context });

describe("previewOf, an expression's result on the known data", () => {
  it("gives the value as the service evaluates it", async () => {
    expect(await preview("steps.fetch.output.rows[1].title")).toEqual({ kind: "value", text: '"row 1"' });
    expect(await preview("'Hello ' & vars.who & ' from ' & execution.workflowName")).toEqual({
      kind: "value",
      text: '"Hello Ada from greet"',
    });
    expect(await preview("$count(steps.fetch.output.rows[id > 30])")).toEqual({ kind: "value", text: "9" });
    expect(await preview("steps.fetch.output.missing")).toEqual({ kind: "value", text: "nothing" });
  });

  it("cuts a long value to a few lines of at most 100 characters, saying what was left out", async () => {
    const rows = await preview("steps.fetch.output.rows");
    const lines = rows.text.split("\n");
    expect(lines).toHaveLength(PREVIEW_LINES + 1);
    expect(lines.at(-1)).toMatch(/^… \d+ more lines$/);
    const note = await preview("steps.fetch.output.note");
    expect(note.text).toHaveLength(100);
    expect(note.text.endsWith("…")).toBe(true);
  });

  it("says whether a condition lets its step run", async () => {
    expect(await preview("vars.who = 'Ada'", true)).toEqual({ kind: "value", text: "true\n→ the step runs" });
    expect(await preview("steps.fetch.output.missing", true)).toEqual({
      kind: "value",
      text: "nothing\n→ the step is skipped",
    });
  });

  it("gives the error a run would fail with", async () => {
    expect(await preview("steps.fetch.output.rows[")).toMatchObject({
      kind: "error",
      text: expect.stringMatching(/character/),
    });
    expect(await preview("$error('stop here')")).toEqual({ kind: "error", text: "stop here (at character 7)" });
  });

  it("never previews secrets, even where the text only reads the whole context", async () => {
    expect(await preview("secrets.api_key")).toEqual(SECRETS_NOT_PREVIEWED);
    expect(await preview("$length(secrets.api_key)")).toEqual(SECRETS_NOT_PREVIEWED);
    expect(await preview("$$.secrets")).toEqual(SECRETS_NOT_PREVIEWED);
    expect(SECRETS_NOT_PREVIEWED.text).not.toMatch(/\d/);
  });

  it("says which name has no known value instead of evaluating without it", async () => {
    expect(await preview("steps.later.output.id & steps.fetch.output.note")).toEqual({
      kind: "unknown",
      text: "steps.later has no known output",
    });
    expect(await preview("vars.limit * 2")).toEqual({ kind: "unknown", text: "vars.limit has no known value" });
    expect(await preview("item.id")).toEqual({ kind: "unknown", text: "item.id has no known value" });
    expect(await previewOf({ expression: "vars.who", condition: false, context: { steps: {} } })).toEqual({
      kind: "unknown",
      text: "vars.who has no known value",
    });
  });
});
