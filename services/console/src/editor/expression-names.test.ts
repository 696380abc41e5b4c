import { describe, expect, it } from "vitest";
import { expressionNamesAt } from "./expression-names";
import type { ExpressionScope } from "./expression-scope";

const scope: ExpressionScope = {
  variables: [{ name: "ticket_id", detail: "string, required", info: "The ticket" }, { name: "dry-run" }],
  steps: [{ name: "fetch", detail: "javascript" }, { name: "order-id" }],
  inForeach: false,
  foreach: [],
  deeper: false,
  approvalGroups: null,
  shared: null,
};
const at = (before: string, s: Partial<ExpressionScope> = {}, explicit = false) =>
  expressionNamesAt(before, () => ({ ...scope, ...s }), ["crm_token"], explicit);
const labels = (before: string, s: Partial<ExpressionScope> = {}, explicit = false) =>
  at(before, s, explicit)?.options.map((o) => o.label);

describe("expressionNamesAt, the names an expression can read where the cursor is", () => {
  it("offers the variables after vars., with their type, written as JSONata reads them", () => {
    const found = at('    prompt: "Ticket {{ vars.ti');
    expect(found?.word).toBe("ti");
    expect(found?.from).toBe('    prompt: "Ticket {{ vars.'.length);
    expect(found?.options).toEqual([
      { label: "ticket_id", apply: "ticket_id", detail: "string, required", info: "The ticket" },
      { label: "dry-run", apply: "`dry-run`" },
    ]);
  });

  it("offers the steps before after steps., then a step's result fields", () => {
    expect(labels("    input: {{ steps.")).toEqual(["fetch", "order-id"]);
    expect(at("    input: {{ steps.")?.options[1]!.apply).toBe("`order-id`");
    expect(labels("    input: {{ steps.fetch.")).toEqual(["output", "status", "duration", "error"]);
    // Into the output's data: the known output's fields are output-paths.ts's to offer.
    expect(at("    input: {{ steps.fetch.output.")).toBeNull();
  });

  it("offers the roots once a letter is typed or when asked, item and approval only where they exist", () => {
    expect(at("    input: {{ ")).toBeNull();
    expect(labels("    input: {{ ", {}, true)).toEqual(["vars", "steps", "execution", "secrets"]);
    expect(labels("    input: {{ s", { inForeach: true, approvalGroups: ["rows"] })).toEqual([
      "vars",
      "steps",
      "execution",
      "secrets",
      "item",
      "approval",
    ]);
    expect(labels("    input: {{ approval.", { approvalGroups: ["rows"] })).toEqual(["rows"]);
  });

  it("offers the execution's fields, the secrets' names and JSONata's functions", () => {
    expect(labels("    x: {{ execution.")).toContain("triggerSource");
    expect(labels('    headers: { Authorization: "Bearer {{ secrets.')).toEqual(["crm_token"]);
    const functions = labels("    x: {{ $count(steps.fetch.output) + $su");
    expect(functions).toContain("$sum");
    expect(functions).not.toContain("$eval");
  });

  it("reads a condition's bare expression, and stops where an expression does", () => {
    expect(labels('    condition: "vars.')).toEqual(["ticket_id", "dry-run"]);
    expect(labels("    condition: vars.ticket_id = 3 and steps.")).toEqual(["fetch", "order-id"]);
    expect(at("    input: {{ vars.ticket_id }} and vars.")).toBeNull();
    expect(at("    name: vars.")).toBeNull();
    // A path into data, not a root: after a bracket, or under item.
    expect(at("    input: {{ steps.fetch.output[0].")).toBeNull();
    expect(at("    input: {{ item.", { inForeach: true })).toBeNull();
  });
});
