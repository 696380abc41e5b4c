import { describe, expect, it } from "vitest";
import { evaluateCondition, evaluateExpression, ExpressionError, renderTemplate, type ExpressionContext } from "./index";

const ctx = (over: Partial<ExpressionContext> = {}): ExpressionContext => ({
  vars: { ticket_id: "T-1", dry_run: false, priority: 3 },
  steps: { fetch: { output: { rows: [{ id: 1 }, { id: 2 }] }, status: "COMPLETED" } },
  execution: { id: "e1" },
  secrets: {},
  ...over,
});

describe("templates", () => {
  it("a whole template yields the typed value", async () => {
    expect(await renderTemplate("{{ steps.fetch.output.rows }}", ctx())).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await renderTemplate("{{ 1 + 1 }}", ctx())).toBe(2);
    expect(await renderTemplate("{{ vars.dry_run }}", ctx())).toBe(false);
  });

  it("mixed text interpolates values as text", async () => {
    expect(await renderTemplate("Ticket {{ vars.ticket_id }} has {{ $count(steps.fetch.output.rows) }} rows", ctx())).toBe(
      "Ticket T-1 has 2 rows",
    );
    expect(await renderTemplate("rows: {{ steps.fetch.output.rows }}", ctx())).toBe('rows: [{"id":1},{"id":2}]');
    expect(await renderTemplate("missing: [{{ vars.nope }}]", ctx())).toBe("missing: []");
  });

  it("renders nested objects and arrays, leaving plain values alone", async () => {
    expect(await renderTemplate({ a: ["{{ vars.priority * 2 }}", 5, null], b: { c: "x{{ vars.ticket_id }}" } }, ctx())).toEqual({
      a: [6, 5, null],
      b: { c: "xT-1" },
    });
  });

  it("two templates in one string are text, not one expression", async () => {
    expect(await renderTemplate("{{ 1 }}{{ 2 }}", ctx())).toBe("12");
  });
});

describe("conditions and errors", () => {
  it("conditions are truthy tests of a bare expression", async () => {
    expect(await evaluateCondition("vars.dry_run = false", ctx())).toBe(true);
    expect(await evaluateCondition("vars.priority > 5", ctx())).toBe(false);
    expect(await evaluateCondition("vars.missing", ctx())).toBe(false);
  });

  it("a syntax error names the expression", async () => {
    const err = await evaluateExpression("vars.(", ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExpressionError);
    expect((err as ExpressionError).message).toContain("`vars.(`");
  });

  it("cannot reach prototypes or globals", async () => {
    expect(await evaluateExpression("vars.constructor", ctx())).toBeUndefined();
    expect(await evaluateExpression("vars.__proto__", ctx())).toBeUndefined();
    expect(await evaluateExpression("$process", ctx())).toBeUndefined();
  });

  it("a runaway expression is stopped", async () => {
    const err = await evaluateExpression("($f := function($n) { $f($n + 1) }; $f(0))", ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExpressionError);
  });
});
