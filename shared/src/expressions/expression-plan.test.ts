import jsonata from "jsonata";
import { describe, expect, it } from "vitest";
import { compiledExpression, expressionsKept } from "./compiled-expressions.mjs";
import { contextFor, keysRead, planFor, plansKept, readNamePath, type ContextNeeds } from "./expression-plan";

/** Needs as plain data, for toEqual. */
function needs(expression: string): "all" | Record<string, "whole" | string[]> {
  const n: ContextNeeds = planFor(expression, "test").needs;
  if (n === "all") return "all";
  return Object.fromEntries([...n].map(([name, need]) => [name, need === "whole" ? "whole" : [...need].sort()]));
}

const context = {
  vars: { ticket: "T-1", list: [3, 1, 2], nested: { a: { b: 1 } }, n: 5 },
  steps: {
    fetch: {
      output: {
        rows: [
          { id: 1, tag: "x" },
          { id: 2, tag: "y" },
        ],
      },
      status: "COMPLETED",
    },
    other: { output: "secret-looking text", status: "COMPLETED" },
  },
  item: [{ id: 7 }, { id: 8 }],
  execution: { id: "e1", workflowName: "wf" },
  secrets: { token: "s3cr3t" },
};

describe("what an expression reads of its context", () => {
  it.each([
    ["steps.fetch.output.rows", { steps: ["fetch"] }],
    // Inside a predicate, names are the row's: `vars` here is not the context's.
    ["steps.fetch.output.rows[id = vars.n]", { steps: ["fetch"] }],
    ["steps.fetch.output.rows[id = $$.vars.n]", "all"],
    ['vars.ticket & " " & steps.fetch.status & steps.other.status', { vars: ["ticket"], steps: ["fetch", "other"] }],
    ["$count(steps.fetch.output.rows)", { steps: ["fetch"] }],
    ["$sum(item.id)", { item: ["id"] }],
    ["steps.fetch.output.rows.(id * 2)", { steps: ["fetch"] }],
    ["steps", { steps: "whole" }],
    ["steps.*.status", { steps: "whole" }],
    ["steps[0]", { steps: "whole" }],
    ["steps.fetch.output.rows^(>id).tag", { steps: ["fetch"] }],
    ["steps.fetch.output.rows{tag: id}", { steps: ["fetch"] }],
    ["($f := function($x) { $x + vars.n }; $f(1))", { vars: ["n"] }],
    ["$map(vars.list, function($v) { $v * 2 })", { vars: ["list"] }],
    ["steps.fetch.output.rows.$string()", { steps: ["fetch"] }],
    ["vars.n > 3 ? secrets.token : execution.id", { vars: ["n"], secrets: ["token"], execution: ["id"] }],
    ["1 + 1", {}],
  ])("%s", (expression, expected) => {
    expect(needs(expression)).toEqual(expected);
  });

  it.each([
    "$",
    "$$.secrets",
    "steps.fetch.output.rows.$$.secrets",
    "*",
    "**.token",
    "$string()",
    "$keys()",
    "$lookup($, 'secrets')",
    // A context parameter takes the input when an argument is missing: here, a number is not a string.
    "vars.n ~> $substring(1)",
    '$eval("secrets")',
    "steps.fetch.%.other",
    "steps@$s.secrets",
    "steps#$i.fetch",
    "$map(vars.list, $string)",
    "($f := function($x)<x-:s> { $string($x) }; $f())",
    "($string := function() { 1 }; $string())",
    "$substring(?, 1)",
    "($f := function() { $ }; $f())",
  ])("%s reads all of it", (expression) => {
    expect(needs(expression)).toBe("all");
  });

  it("evaluating on the part it reads gives what evaluating on the whole context gives", async () => {
    const expressions = [
      "steps.fetch.output.rows[id = 2].tag",
      "$count(steps.fetch.output.rows) + vars.n",
      "steps.*.status",
      "$sum(item.id)",
      "item[0].id",
      "$keys(steps)",
      "$keys(vars.nested)",
      "vars.missing.x",
      "steps.missing.output",
      "($f := function($x) { $x & secrets.token }; $f(vars.ticket))",
      "$map(vars.list, function($v, $i) { $v * $i })",
      "steps.fetch.output.rows.{ 'id': id, 'n': $$.vars.n }",
      "$string(steps)",
    ];
    for (const expression of expressions) {
      const part = contextFor(planFor(expression, "test").needs, context);
      const compiled = jsonata(expression);
      expect(JSON.stringify(await compiled.evaluate(part)), expression).toBe(
        JSON.stringify(await compiled.evaluate(context)),
      );
    }
  });

  it("only what is read is sent", () => {
    expect(contextFor(planFor("steps.fetch.output", "test").needs, context)).toEqual({
      steps: { fetch: context.steps.fetch },
    });
    // An array is not cut by key: `item.id` maps over its items.
    expect(contextFor(planFor("item.id", "test").needs, context)).toEqual({ item: context.item });
    expect(contextFor(planFor("$", "test").needs, context)).toBe(context);
  });

  it("says which keys of one name it reads: some, all, or none (nor does an expression that does not parse)", () => {
    expect(keysRead('$count([steps.s1, steps.s2][status = "COMPLETED"])', "test", "steps")).toEqual(
      new Set(["s1", "s2"]),
    );
    expect(keysRead("steps.*.status", "test", "steps")).toBe("all");
    expect(keysRead("$", "test", "steps")).toBe("all");
    expect(keysRead("vars.n", "test", "steps")).toEqual(new Set());
    expect(keysRead("steps.(", "test", "steps")).toEqual(new Set());
  });
});

describe("bare paths of names", () => {
  it("are recognised only without predicates, bindings or anything else", () => {
    expect(planFor("steps.fetch.output", "test").namePath).toEqual(["steps", "fetch", "output"]);
    expect(planFor("`vars`.ticket", "test").namePath).toEqual(["vars", "ticket"]);
    for (const expression of [
      "steps.fetch.output[0]",
      "steps.fetch.output[]",
      "$.vars",
      "vars.(ticket)",
      "vars.ticket & ''",
      "steps.*",
    ]) {
      expect(planFor(expression, "test").namePath, expression).toBeNull();
    }
  });

  it("read what JSONata reads, and give up on an array before the last name", async () => {
    const data = { a: { b: { c: [1, [2]], d: null, e: "text", f: [] }, list: [{ x: 1 }, { x: 2 }] } };
    for (const path of [
      ["a", "b", "c"],
      ["a", "b", "d"],
      ["a", "b", "e", "length"],
      ["a", "b", "f"],
      ["a", "nope", "c"],
      ["a", "list"],
    ]) {
      const read = readNamePath(data, path);
      expect(read, path.join(".")).not.toBeNull();
      expect(JSON.stringify(read!.value), path.join(".")).toBe(
        JSON.stringify(await jsonata(path.join(".")).evaluate(data)),
      );
    }
    expect(readNamePath(data, ["a", "list", "x"])).toBeNull();
    // Own properties only, as JSONata.
    expect(readNamePath({ o: {} }, ["o", "constructor"])).toEqual({ value: undefined });
  });
});

describe("kept plans", () => {
  it("stay within their characters, and one owner's many large expressions push out its own, not another's", () => {
    const warm = planFor("vars.ticket = 'T-1'", "quiet");
    // More distinct expressions than plans are kept, 5 MB of text in all: more than their room.
    const pad = `'${"x".repeat(5 * 1024)}'`;
    for (let i = 0; i < 1_001; i++) planFor(`vars.n = ${i} and vars.ticket != ${pad}`, "flood");
    // Kept, not parsed again: the very same plan.
    expect(planFor("vars.ticket = 'T-1'", "quiet")).toBe(warm);
    expect(plansKept().chars).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});

describe("compiled expressions of a host's thread", () => {
  it("stay within their characters, and one owner's many large expressions push out its own, not another's", () => {
    compiledExpression("vars.ticket = 'T-1'", "quiet", 500);
    // More distinct expressions than are kept, 2.5 MB of text in all: more than their room.
    const pad = `'${"x".repeat(5 * 1024)}'`;
    for (let i = 0; i < 513; i++) compiledExpression(`vars.n = ${i} and vars.ticket != ${pad}`, "flood", 500);
    expect(expressionsKept().has("vars.ticket = 'T-1'")).toBe(true);
    expect(expressionsKept().chars).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});
