import { CompletionContext } from "@codemirror/autocomplete";
import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import { outputCompletions } from "./complete";
import { outputsAt, type KnownData } from "./preview-context";

const TEXT = `name: x
agents:
  - { name: helper, model: m, instructions: "AGENT" }
steps:
  - { name: fetch, type: transform, output: 1 }
  - { name: use, type: transform, output: "USE" }
  - name: each
    type: foreach
    items: [1]
    steps:
      - { name: shape, type: transform, output: 2 }
      - { name: tell, type: transform, output: "TELL" }
  - name: fan
    type: parallel
    branches:
      left:
        - { name: lookup, type: transform, output: 3 }
        - { name: greet, type: transform, output: "GREET" }
      right:
        - { name: count, type: transform, output: 4 }
  - { name: later, type: transform, output: "LATER" }
`;
/** Every step's known output as the editor has them (a run keeps a branch's steps by name): `{<name>: 1}`. */
const outputs = Object.fromEntries(
  ["fetch", "use", "each", "fan", "lookup", "greet", "count", "later"].map((name) => [name, { [name]: 1 }]),
);
const known: KnownData = {
  steps: {},
  vars: null,
  execution: null,
  foreach: {
    each: {
      run: "r1",
      path: "each",
      items: [1],
      context: {},
      steps: { shape: { output: { "shape in item 0": 1 }, status: "COMPLETED", duration: 1, error: null } },
    },
  },
};
const steps = ["fetch", "use", "each", "shape", "tell", "fan", "lookup", "greet", "count", "later"];

/** The fields completion offers after `steps.<name>.output.` of every step, typed in place of `marker` in `TEXT`. */
const offered = (marker: string) => offeredIn(TEXT, marker);

/** The fields completion offers after `steps.<name>.output.` of every step, typed in place of `marker` in `base`. */
function offeredIn(base: string, marker: string): string[] {
  const complete = outputCompletions(
    outputsAt(
      () => known,
      () => outputs,
    ),
  );
  return steps.flatMap((name) => {
    const typed = `{{ steps.${name}.output.`;
    const text = base.replace(marker, typed);
    const at = text.indexOf(typed) + typed.length;
    const result = complete(new CompletionContext(EditorState.create({ doc: text }), at, true));
    return result?.options.map((option) => option.label) ?? [];
  });
}

describe("outputCompletions, the fields of the outputs an expression reads", () => {
  it("in a top-level step, are those of the steps before it: no later one, nor one of an item or a branch", () => {
    expect(offered("USE")).toEqual(["fetch"]);
    expect(offered("LATER")).toEqual(["fetch", "use", "each", "fan"]);
  });

  it("in a foreach's item or a parallel's branch, are those of the steps before it there and outside", () => {
    expect(offered("TELL")).toEqual(["fetch", "use", "shape in item 0"]);
    expect(offered("GREET")).toEqual(["fetch", "use", "each", "lookup"]);
  });

  it("in an agent's text, are those every step using the agent reads: none when no step uses it", () => {
    expect(offered("AGENT")).toEqual([]);
    const used = TEXT.replace(
      "  - { name: later",
      "  - { name: ask, type: agent, agent: helper, prompt: hi }\n  - { name: later",
    );
    expect(offeredIn(used, "AGENT")).toEqual(["fetch", "use", "each", "fan"]);
  });
});
