import { describe, expect, it } from "vitest";
import { readSource } from "@wf/shared/canvas";
import { expressionScopeAt } from "./expression-scope";
import { previewData, readableOutputs, type KnownData, type KnownStep } from "./preview-context";

const TEXT = `name: x
steps:
  - { name: fetch, type: transform, output: 1 }
  - name: greet
    type: transform
    output: "{{ steps.fetch.output }}"
  - name: each
    type: foreach
    items: "{{ steps.fetch.output }}"
    steps:
      - { name: shape, type: transform, output: "{{ item }}" }
      - name: inner
        type: foreach
        items: "{{ item.rows }}"
        steps:
          - { name: deep, type: transform, output: "{{ item }}" }
          - { name: deeper, type: transform, output: "{{ steps.deep.output }} {{ steps.shape.output }}" }
      - { name: tell, type: transform, output: "{{ steps.shape.output }}" }
  - name: fan
    type: parallel
    branches:
      left:
        - { name: pre, type: transform, output: 2 }
        - name: branched
          type: foreach
          items: [1]
          steps:
            - { name: bstep, type: transform, output: "{{ item }} {{ steps.pre.output }}" }
      right:
        - { name: first, type: transform, output: 3 }
        - { name: second, type: transform, output: "{{ steps.first.output }}" }
  - { name: last, type: transform, output: "{{ steps.fan.output }}" }
agents:
  - { name: helper, model: m, instructions: "{{ steps.last.output }}" }
`;
const source = readSource(TEXT);
/** What an expression just after the first occurrence of `marker` is previewed on. */
const at = (marker: string, known: KnownData) =>
  previewData(expressionScopeAt(source, TEXT.indexOf(marker) + 2), known);
const done = (output: unknown): KnownStep => ({ output, status: "COMPLETED", duration: 3, error: null });

const known: KnownData = {
  // `shape` stands for a pin, or a top-level result, of a name a step inside the foreach has now.
  steps: { fetch: done(1), greet: done("hi"), shape: done("top"), pre: done(2) },
  vars: { who: "Ada" },
  execution: null,
  foreach: {
    each: {
      run: "r1",
      path: "each",
      items: "{{ steps.fetch.output }}",
      context: {},
      steps: { shape: done("item 0"), inner: done([]) },
    },
    "each[0].inner": {
      run: "r1",
      path: "each[0].inner",
      items: "{{ item.rows }}",
      context: {},
      steps: { deep: done("deep 0") },
    },
    branched: { run: "r1", path: "branched", items: [1], context: {}, steps: { bstep: done("b") } },
  },
};

describe("previewData, what an expression is previewed on", () => {
  it("holds the known results of the steps before the expression's step only, and what a run is known to have", () => {
    expect(at("{{ steps.fetch", known)).toEqual({
      context: { steps: { fetch: known.steps.fetch }, vars: { who: "Ada" } },
      itemSteps: [],
      items: [],
    });
  });

  it("reads a step run in the same foreach item as item 0 of the latest run did, over a top-level result", () => {
    expect(at('{{ steps.shape.output }}" }\n  - name: fan', known)).toEqual({
      context: {
        steps: { fetch: done(1), greet: done("hi"), shape: done("item 0"), inner: done([]) },
        vars: { who: "Ada" },
      },
      itemSteps: ["shape", "inner"],
      items: [known.foreach.each],
    });
  });

  it("gives a step inside a foreach no pin or test: without its run in item 0 it is unknown", () => {
    const ranNone = { ...known, foreach: { each: { ...known.foreach.each!, steps: {} } } };
    const data = at('{{ steps.shape.output }}" }\n  - name: fan', ranNone);
    expect(data.context.steps).toEqual({ fetch: done(1), greet: done("hi") });
    expect(data.itemSteps).toEqual([]);
  });

  it("reads each level's item 0 in a foreach nested in another, and a parallel branch's steps at the top", () => {
    expect(at("{{ steps.deep", known)).toEqual({
      context: {
        steps: { fetch: done(1), greet: done("hi"), shape: done("item 0"), deep: done("deep 0") },
        vars: { who: "Ada" },
      },
      itemSteps: ["shape", "deep"],
      items: [known.foreach.each, known.foreach["each[0].inner"]],
    });
    expect(at("{{ item }} {{ steps.pre", known)).toMatchObject({
      context: { steps: { fetch: done(1), greet: done("hi"), pre: done(2) } },
      itemSteps: [],
      items: [known.foreach.branched],
    });
  });

  it("knows no items where the run did not reach the innermost foreach's first item", () => {
    const outerOnly = { ...known, foreach: { each: known.foreach.each! } };
    expect(at("{{ steps.deep", outerOnly)).toMatchObject({
      context: { steps: { shape: done("item 0") } },
      itemSteps: ["shape"],
      items: [],
    });
    expect(at("{{ item }} {{ steps.pre", { ...known, foreach: {} }).items).toEqual([]);
  });
});

describe("readableOutputs, the outputs a step's fields read as steps.<name>.output", () => {
  /**
   * The top-level steps' known outputs: the latest run's (a branch's steps by name), over which the pins and step
   * tests; `shape` a pin of a name a step inside the foreach has now.
   */
  const outputs = { fetch: 1, greet: "hi", shape: "top", fan: {}, pre: 2, first: 3, second: 4, last: "after" };
  const of = (marker: string, data = known) =>
    readableOutputs(expressionScopeAt(source, TEXT.indexOf(marker) + 2), data, outputs);

  it("at the top level, are the known outputs of the steps before it: no later one's, nor an item's or a branch's", () => {
    expect(of("{{ steps.fetch")).toEqual({ before: ["fetch"], outputs: { fetch: 1 }, itemSteps: [], items: [] });
    expect(of("{{ steps.fan")).toEqual({
      before: ["fetch", "greet", "each", "fan"],
      outputs: { fetch: 1, greet: "hi", fan: {} },
      itemSteps: [],
      items: [],
    });
  });

  it("outside every step, in the text of an agent no step uses, are none", () => {
    expect(of("{{ steps.last")).toEqual({ before: [], outputs: {}, itemSteps: [], items: [] });
  });

  it("inside one, are the item's earlier steps as item 0 of the latest run ran them, over a top-level one", () => {
    expect(of('{{ steps.shape.output }}" }\n  - name: fan')).toEqual({
      before: ["fetch", "greet", "shape", "inner"],
      outputs: { fetch: 1, greet: "hi", shape: "item 0", inner: [] },
      itemSteps: ["shape", "inner"],
      items: [known.foreach.each],
    });
  });

  it("in a nested foreach, are those of each enclosing item too; a failed or missing item run is unknown", () => {
    const failed = { ...known.foreach["each[0].inner"]!, steps: { deep: { ...done(null), status: "FAILED" } } };
    expect(of("{{ steps.deep")).toMatchObject({
      outputs: { shape: "item 0", deep: "deep 0" },
      itemSteps: ["shape", "deep"],
    });
    const ranNot = of("{{ steps.deep", { ...known, foreach: { ...known.foreach, "each[0].inner": failed } });
    expect(ranNot.outputs).not.toHaveProperty("deep");
    expect(ranNot.itemSteps).toEqual(["shape"]);
    const none = of('{{ steps.shape.output }}" }\n  - name: fan', { ...known, foreach: {} });
    expect(none).toMatchObject({ outputs: { fetch: 1, greet: "hi" }, itemSteps: [], items: [] });
    expect(Object.keys(none.outputs)).toEqual(["fetch", "greet"]);
  });

  it("in a foreach in a parallel's branch, are those before it, with that foreach's items", () => {
    expect(of("{{ item }} {{ steps.pre")).toEqual({
      before: ["fetch", "greet", "each", "pre"],
      outputs: { fetch: 1, greet: "hi", pre: 2 },
      itemSteps: [],
      items: [known.foreach.branched],
    });
  });

  it("in a parallel's branch, are read by the steps before it in that branch, and no other branch's", () => {
    expect(of("{{ steps.first")).toEqual({
      before: ["fetch", "greet", "each", "first"],
      outputs: { fetch: 1, greet: "hi", first: 3 },
      itemSteps: [],
      items: [],
    });
  });
});
