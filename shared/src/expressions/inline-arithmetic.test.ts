import jsonata from "jsonata";
import { describe, expect, it } from "vitest";
import { planFor } from "./expression-plan";
import { evaluateCalc } from "./inline-arithmetic";

const CONTEXTS = [
  {
    vars: { n: 5, m: 7, x: 0.1, big: 1e300, s: "a", b: true, nul: null, obj: { x: 1 }, arr: [1, 2], one: [4] },
    steps: { a: { output: 2 } },
  },
  {
    vars: { n: -3, m: 0, x: 2.5, big: 10, s: "", b: false, nul: 0, obj: null, arr: [] },
    steps: { a: { output: "2" } },
  },
  { vars: { n: 123456789012345, m: 1e16, x: -0, s: "héllo", b: 1, nul: "null" }, steps: {} },
  { vars: {}, steps: { a: null } },
];

/** Taken here where every value is plain: numbers for arithmetic; strings, integers, booleans, null for `&`. */
const INLINE = [
  "steps.a.output + 1",
  "vars.n - vars.m",
  "vars.n * 2.5",
  "vars.n / 4",
  "vars.n % 4",
  "vars.n * 2 + vars.m",
  "(vars.n + 1) * (vars.m - 1)",
  "vars.x + 0.2",
  "vars.missing + 1",
  "'Hello ' & vars.s",
  "vars.s & '-' & vars.n",
  "vars.b & vars.nul",
  "vars.missing & 'x'",
  "steps.a.output & ''",
  "vars.n & vars.m",
];
/** Left to the pool, whole: JSONata formats, refuses or maps what these meet in some context. */
const DEFERRED: [string, number][] = [
  ["vars.s + 1", 0],
  ["vars.obj + 1", 0],
  ["vars.arr + 1", 0],
  ["vars.one + 1", 0],
  ["vars.nul + 1", 0],
  ["vars.n / vars.m", 1],
  ["vars.big * vars.big", 0],
  ["vars.x & ''", 0],
  ["vars.m & ''", 2],
  ["vars.obj & ''", 0],
];

async function jsonataValue(expression: string, context: object): Promise<{ value: unknown } | { error: string }> {
  try {
    return { value: await jsonata(expression).evaluate(context) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe("arithmetic and joins evaluated on the calling thread", () => {
  it.each(INLINE)("%s gives what JSONata gives, in every context where it is decided here", async (expression) => {
    const plan = planFor(expression, "test");
    expect(plan.calc).not.toBeNull();
    let decided = 0;
    for (const context of CONTEXTS) {
      const inline = evaluateCalc(plan.calc!, context);
      if (!inline) continue;
      decided++;
      expect({ value: inline.value }, JSON.stringify(context)).toEqual(await jsonataValue(expression, context));
    }
    expect(decided).toBeGreaterThan(1);
  });

  it.each(DEFERRED)("%s is left to JSONata in context %i", (expression, at) => {
    const plan = planFor(expression, "test");
    expect(plan.calc).not.toBeNull();
    expect(evaluateCalc(plan.calc!, CONTEXTS[at]!)).toBeNull();
  });

  it.each(["vars.n", "-vars.n + 1", "$string(vars.n) & 'x'", "vars.arr[0] + 1", "vars.n > 1", "vars.b + true"])(
    "%s has no inline form",
    (expression) => {
      expect(planFor(expression, "test").calc).toBeNull();
    },
  );
});
