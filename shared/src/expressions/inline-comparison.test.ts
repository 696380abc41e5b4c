import jsonata from "jsonata";
import { describe, expect, it } from "vitest";
import { planFor } from "./expression-plan";
import { evaluateInline } from "./inline-comparison";

const CONTEXTS = [
  { vars: { n: 5, m: 7, s: "a", b: true, nul: null, obj: { x: 1 }, arr: [1, 2] }, steps: { a: { output: 2 } } },
  { vars: { n: 3, m: 3, s: "b", b: false, nul: 0, obj: null, arr: [] }, steps: { a: { output: "2" } } },
  { vars: { n: -1.5, m: 0, s: "", b: 0, nul: "null" }, steps: {} },
  { vars: {}, steps: { a: null } },
];

/** Taken here: scalars on bare paths against scalar literals, and and/or of those. */
const INLINE = [
  "vars.n > 3",
  "vars.n = 3",
  "vars.n != 3",
  "vars.s = 'a'",
  'vars.s != "a"',
  "vars.b = true",
  "vars.missing = 1",
  "vars.missing != 1",
  "vars.missing < 1",
  "vars.n < vars.m",
  "vars.n >= vars.m",
  "vars.s < 'b'",
  "vars.s <= vars.s",
  "vars.nul = null",
  "steps.a.output >= 2",
  "vars.n > 1 and vars.s = 'a'",
  "vars.n > 100 or vars.b = true",
  "vars.n > 100 or vars.missing = 1",
  "(vars.n > 1 and vars.m > 1) or vars.s = 'z'",
];
/** Left to the pool: JSONata decides (deep equality, mapping over arrays, errors). */
const DEFERRED = ["vars.obj = 1", "vars.arr = 1", "vars.n < 'x'", "vars.b < 1"];

async function jsonataValue(expression: string, context: object): Promise<{ value: unknown } | { error: string }> {
  try {
    return { value: await jsonata(expression).evaluate(context) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe("comparisons evaluated on the calling thread", () => {
  it.each(INLINE)("%s gives what JSONata gives, in every context where it is decided here", async (expression) => {
    const plan = planFor(expression, "test");
    expect(plan.comparison).not.toBeNull();
    let decided = 0;
    for (const context of CONTEXTS) {
      const inline = evaluateInline(plan.comparison!, context);
      if (!inline) continue;
      decided++;
      expect({ value: inline.value }, JSON.stringify(context)).toEqual(await jsonataValue(expression, context));
    }
    expect(decided).toBeGreaterThan(0);
  });

  it.each(DEFERRED)(
    "%s is left to JSONata where a value is an object, an array or of another type",
    async (expression) => {
      const plan = planFor(expression, "test");
      expect(plan.comparison).not.toBeNull();
      // The first context holds the object, the array and the mixed types.
      expect(evaluateInline(plan.comparison!, CONTEXTS[0]!)).toBeNull();
    },
  );

  it.each([
    "$count(vars.arr) > 1",
    "vars.n + 1 > 3",
    "vars.s in ['a']",
    "vars.n > 3 ? 1 : 2",
    "vars.arr[0] = 1",
    "vars.n",
  ])("%s has no inline form", (expression) => {
    expect(planFor(expression, "test").comparison).toBeNull();
  });
});
