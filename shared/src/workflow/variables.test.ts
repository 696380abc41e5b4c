import { describe, expect, it } from "vitest";
import { coerceVariable, parseWorkflow, resolveVariables, type Workflow } from "./index";

function workflowWith(variables: string): Workflow {
  const result = parseWorkflow(
    `name: x\nvariables:\n${variables}steps:\n  - name: a\n    type: wait\n    seconds: 1\n`,
  );
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.workflow;
}

const workflow = workflowWith(`  ticket_id: { type: string, required: true }
  priority:  { type: number, default: 3 }
  dry_run:   { type: boolean, default: false }
  tags:      { type: array, default: [] }
  meta:      { type: object }
`);

describe("resolveVariables", () => {
  it("applies defaults and leaves optional variables without one unset", () => {
    const result = resolveVariables(workflow, { ticket_id: "T-1" });
    expect(result).toEqual({ ok: true, vars: { ticket_id: "T-1", priority: 3, dry_run: false, tags: [] } });
  });

  it("lets inputs override defaults", () => {
    const result = resolveVariables(workflow, { ticket_id: "T-1", priority: 1, tags: ["a"], meta: { k: 1 } });
    expect(result).toEqual({
      ok: true,
      vars: { ticket_id: "T-1", priority: 1, dry_run: false, tags: ["a"], meta: { k: 1 } },
    });
  });

  it("gives each run its own copy of a default", () => {
    const first = resolveVariables(workflow, { ticket_id: "T-1" });
    if (!first.ok) throw new Error("unexpected");
    (first.vars.tags as string[]).push("mutated");
    expect(resolveVariables(workflow, { ticket_id: "T-2" })).toMatchObject({ ok: true, vars: { tags: [] } });
  });

  it("reports every problem: missing, wrong types, unknown names", () => {
    const result = resolveVariables(workflow, {
      priority: Number.NaN,
      dry_run: "yes",
      tags: {},
      meta: [],
      ticketid: "x",
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors).toEqual([
      {
        name: "ticketid",
        message:
          "no variable named `ticketid` (did you mean `ticket_id`?); known: ticket_id, priority, dry_run, tags, meta",
      },
      { name: "ticket_id", message: "required variable `ticket_id` (string) is missing" },
      { name: "priority", message: "`priority` must be a number, not the number NaN" },
      { name: "dry_run", message: '`dry_run` must be true or false, not the string "yes"' },
      { name: "tags", message: "`tags` must be a list, not a mapping" },
      { name: "meta", message: "`meta` must be a mapping, not a list" },
    ]);
  });

  it("rejects any input when the workflow declares no variables", () => {
    const bare = parseWorkflow("name: x\nsteps:\n  - name: a\n    type: wait\n    seconds: 1\n");
    if (!bare.ok) throw new Error("unexpected");
    expect(resolveVariables(bare.workflow, { x: 1 })).toEqual({
      ok: false,
      errors: [{ name: "x", message: "no variable named `x`: this workflow declares no variables" }],
    });
    expect(resolveVariables(bare.workflow, {})).toEqual({ ok: true, vars: {} });
  });
});

describe("coerceVariable", () => {
  it("turns command-line text into typed values", () => {
    expect(coerceVariable({ type: "string" }, "5")).toEqual({ ok: true, value: "5" });
    expect(coerceVariable({ type: "number" }, "5")).toEqual({ ok: true, value: 5 });
    expect(coerceVariable({ type: "number" }, " -2.5e3 ")).toEqual({ ok: true, value: -2500 });
    expect(coerceVariable({ type: "boolean" }, "TRUE")).toEqual({ ok: true, value: true });
    expect(coerceVariable({ type: "boolean" }, "false")).toEqual({ ok: true, value: false });
    expect(coerceVariable({ type: "array" }, '["a", 1]')).toEqual({ ok: true, value: ["a", 1] });
    expect(coerceVariable({ type: "object" }, '{"k": {"n": 1}}')).toEqual({ ok: true, value: { k: { n: 1 } } });
  });

  it("says why text does not fit", () => {
    expect(coerceVariable({ type: "number" }, "")).toEqual({ ok: false, message: "`` is not a number" });
    expect(coerceVariable({ type: "number" }, "0x10")).toEqual({ ok: false, message: "`0x10` is not a number" });
    expect(coerceVariable({ type: "number" }, "five")).toEqual({ ok: false, message: "`five` is not a number" });
    expect(coerceVariable({ type: "boolean" }, "yes")).toEqual({
      ok: false,
      message: "`yes` is not a boolean: use true or false",
    });
    expect(coerceVariable({ type: "array" }, '{"a": 1}')).toEqual({
      ok: false,
      message: "expected a list as JSON, got a mapping",
    });
    expect(coerceVariable({ type: "object" }, "[1]")).toEqual({
      ok: false,
      message: "expected a mapping as JSON, got a list",
    });
    const bad = coerceVariable({ type: "array" }, "[1,");
    expect(!bad.ok && bad.message).toMatch(/^`\[1,` is not valid JSON \(.+\); give a list as JSON, e\.g\. \["a", 1\]$/);
  });
});
