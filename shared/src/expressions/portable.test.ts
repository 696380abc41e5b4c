import { describe, expect, it } from "vitest";
import { evaluateExpression, ExpressionError, renderTemplate, type ExpressionContext } from "./index";
import { evaluateHere, renderHere } from "./portable";

const OWNER = "u1";

const context: ExpressionContext = {
  vars: { who: "Ada", limit: 2 },
  steps: {
    fetch: {
      output: {
        rows: [
          { id: 1, title: "first" },
          { id: 2, title: "second" },
        ],
        "order-id": "o-7",
      },
      status: "COMPLETED",
      duration: 12,
      error: null,
    },
  },
  execution: { id: "e1", workflowName: "w" },
  secrets: {},
};

/** What an evaluation gives, or the reason it fails: the console's preview and a run must say the same. */
async function outcome(evaluate: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await evaluate() };
  } catch (err) {
    return { reason: err instanceof ExpressionError ? err.reason : String(err) };
  }
}

describe("evaluating without the expression hosts (the console's preview)", () => {
  // Each takes another way: a bare path, an inline comparison, inline arithmetic, and the hosts' thread for the rest.
  const expressions = [
    "steps.fetch.output.rows[1].title",
    "vars.limit = 2",
    "vars.limit * 10 + 1",
    "vars.who & ' and ' & steps.fetch.output.`order-id`",
    "$map(steps.fetch.output.rows, function($r) { $r.id * 2 })",
    "$count(steps.fetch.output.rows[title ~> /sec.*/])",
    "function($x) { $x }",
    "{ 'f': function($x) { $x }, 'n': 1 }",
    "$keys(steps)",
    "steps.fetch.output.nothing",
    "$$.execution.workflowName",
    // Failures: syntax, a runtime error, a pattern RE2 refuses, the depth bound.
    "steps.fetch.output.rows[",
    "$error('stop here')",
    "$match('aa', /(a)\\1/)",
    "($f := function($n) { $n = 0 ? 0 : 1 + $f($n - 1) }; $f(10000))",
  ];

  it.each(expressions)("gives what a run gives: %s", async (expression) => {
    const run = await outcome(() => evaluateExpression(expression, context, OWNER));
    expect(await outcome(() => evaluateHere(expression, context, OWNER))).toEqual(run);
  });
});

describe("rendering a templated value without the expression hosts (the console's preview)", () => {
  const values = [
    "Hi {{ vars.who }}, you owe {{ vars.limit * 10 }} for {{ steps.fetch.output.rows }}",
    "  {{ steps.fetch.output.rows[0] }} ",
    "{{ steps.fetch.output.nothing }} and {{ $count(steps.fetch.output.rows) }}",
    { to: "{{ vars.who }}", list: ["#{{ vars.limit }}", "{{ vars.limit }}"] },
    "fails in {{ $error('the second') }}",
  ];

  it.each(values)("gives what a run gives: %j", async (value) => {
    const run = await outcome(() => renderTemplate(value, context, OWNER));
    expect(await outcome(() => renderHere(value, context, OWNER))).toEqual(run);
  });
});
