import { describe, expect, it } from "vitest";
import { readSource } from "@wf/shared/canvas";
import { expressionNamesAt } from "./expression-names";
import { expressionScopeAt } from "./expression-scope";
import { previewData, readableOutputs, type KnownData, type KnownStep } from "./preview-context";
import { sharedTextNote } from "./shared-text";

const TEXT = `name: x
agents:
  - name: helper
    model: m
    instructions: "HELPER {{ steps.fetch.output }}"
  - { name: looper, model: m, instructions: "LOOPER" }
  - { name: idle, model: m, instructions: "IDLE" }
  - { name: nested, model: m, instructions: "NESTED" }
  - { name: gated, model: m, instructions: "GATED" }
  - { name: mixed, model: m, instructions: "MIXED" }
steps:
  - { name: fetch, type: transform, output: 1 }
  - { name: ask, type: agent, agent: helper, prompt: hi }
  - name: each
    type: foreach
    items: [1]
    steps:
      - { name: shape, type: transform, output: 2 }
      - { name: again, type: agent, agent: helper, prompt: hi }
      - { name: loop1, type: agent, agent: looper, prompt: hi }
      - { name: loop2, type: agent, agent: looper, prompt: "{{ 'agent: idle' }}" }
      - { name: near, type: agent, agent: nested, prompt: hi }
      - name: inner
        type: foreach
        items: [2]
        steps:
          - { name: deep, type: agent, agent: nested, prompt: hi }
  - { name: later, type: agent, agent: helper, prompt: hi }
  - name: check
    type: agent
    agent: gated
    prompt: hi
    manual_approval:
      message: ok?
      timeout: 60
      groups:
        - { name: rows, title: Rows, items: [], columns: [] }
        - { name: notes, title: Notes, items: [], columns: [] }
  - name: approved
    type: foreach
    items: [1]
    manual_approval:
      message: ok?
      timeout: 60
      groups: [{ name: rows, title: Rows, items: [], columns: [] }]
    steps:
      - { name: recheck, type: agent, agent: gated, prompt: hi }
  - { name: once, type: agent, agent: mixed, prompt: hi, manual_approval: { message: ok?, timeout: 60 } }
  - { name: free, type: agent, agent: mixed, prompt: hi }
`;
const source = readSource(TEXT);
const scopeAt = (marker: string) => expressionScopeAt(source, TEXT.indexOf(marker));
const done = (output: unknown): KnownStep => ({ output, status: "COMPLETED", duration: 3, error: null });
const known: KnownData = {
  steps: { fetch: done("f"), ask: done("a"), each: done([]) },
  vars: null,
  execution: null,
  foreach: {
    each: { run: "r1", path: "each", items: [1], context: {}, steps: { shape: done("s0"), again: done("g0") } },
  },
};
const outputs = { fetch: "f", ask: "a", each: [], later: "l" };

describe("text outside every step: an agent's, read as every step using the agent reads", () => {
  it("reads only the steps every step using the agent reads, as at the first of them", () => {
    const scope = scopeAt("HELPER");
    expect(scope.shared?.users.map((user) => user.name)).toEqual(["ask", "again", "later"]);
    expect(scope.steps.map((step) => step.name)).toEqual(["fetch"]);
    expect(scope.inForeach).toBe(false);
    expect(readableOutputs(scope, known, outputs).outputs).toEqual({ fetch: "f" });
    expect(previewData(scope, known).context).toEqual({ steps: { fetch: known.steps.fetch } });
    expect(sharedTextNote(scope.shared!)).toEqual({
      where: "As at ask, the first of the 3 steps using the agent helper, on what each of them reads.",
    });
  });

  it("in one foreach's item, reads that item's earlier steps and item as item 0 of the latest run", () => {
    const scope = scopeAt("LOOPER");
    expect(scope.steps.map((step) => step.name)).toEqual(["fetch", "ask", "shape", "again"]);
    expect(scope.foreach).toEqual([{ name: "each", steps: ["shape", "again"] }]);
    expect(readableOutputs(scope, known, outputs)).toMatchObject({
      outputs: { fetch: "f", ask: "a", shape: "s0", again: "g0" },
      itemSteps: ["shape", "again"],
      items: [known.foreach.each],
    });
  });

  it("used in a foreach's item and in one nested in it, reads the outer item's steps, but no `item`: another at each", () => {
    const scope = scopeAt("NESTED");
    expect(scope.shared?.users.map((user) => user.name)).toEqual(["near", "deep"]);
    expect(scope.steps.map((step) => step.name)).toEqual(["fetch", "ask", "shape", "again", "loop1", "loop2"]);
    expect(scope.foreach).toEqual([{ name: "each", steps: ["shape", "again", "loop1", "loop2"] }]);
    expect(scope.inForeach).toBe(true);
    expect(previewData(scope, known)).toMatchObject({
      context: { steps: { fetch: done("f"), ask: done("a"), shape: done("s0"), again: done("g0") } },
      itemSteps: ["shape", "again"],
      items: [],
    });
  });

  it("when every step using the agent is gated, reads `approval`: the groups every one of the gates has", () => {
    const gated = scopeAt("GATED");
    expect(gated.shared?.users.map((user) => user.name)).toEqual(["check", "recheck"]);
    expect(gated.approvalGroups).toEqual(["rows"]);
    const offered = (typed: string) =>
      expressionNamesAt(`    instructions: "{{ ${typed}`, () => gated, [], true)?.options.map((o) => o.label);
    expect(offered("a")).toContain("approval");
    expect(offered("approval.")).toEqual(["rows"]);
    expect(scopeAt("MIXED").approvalGroups).toBeNull();
    expect(scopeAt("HELPER").approvalGroups).toBeNull();
  });

  it("reads nothing when no step uses the agent, and says why there is no value", () => {
    const scope = scopeAt("IDLE");
    expect(scope.shared?.users).toEqual([]);
    expect(readableOutputs(scope, known, outputs).outputs).toEqual({});
    expect(sharedTextNote(scope.shared!)).toEqual({
      none: "No step uses the agent idle: its text is rendered where a step using it runs.",
    });
  });

  it("is none of a step's own text", () => {
    expect(scopeAt("'agent: idle'").shared).toBeNull();
  });
});
