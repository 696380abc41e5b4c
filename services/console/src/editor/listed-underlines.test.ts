import { forEachDiagnostic, setDiagnostics } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { describe, expect, it } from "vitest";
import type { WorkflowIssue } from "@wf/shared/workflow";
import { toDiagnostics } from "./lint";
import { unlistedUnderlinesGone } from "./listed-underlines";

const TEXT = "name: x\nsteps:\n  - { name: a, type: nope }\n  - { name: a, type: transform, output: 1 }\n";
const badType: WorkflowIssue = { line: 3, column: 23, path: "steps[0].type", message: "unknown step type" };
const twice: WorkflowIssue = { line: 4, column: 12, path: "steps[1].name", message: "`a` is taken" };

/** The editor's state with `issues` underlined, as the linter leaves it. */
const underlined = (issues: WorkflowIssue[]) => {
  const state = EditorState.create({ doc: TEXT });
  return state.update(setDiagnostics(state, toDiagnostics(state.doc, issues))).state;
};
const messages = (state: EditorState) => {
  const found: string[] = [];
  forEachDiagnostic(state, (d, from, to) => found.push(`${from}-${to} ${d.message}`));
  return found;
};

describe("unlistedUnderlinesGone, the underlines kept to the page's list of problems", () => {
  it("takes away at once the underline of a problem the list no longer has, keeping the others where they are", () => {
    const state = underlined([badType, twice]);
    const [, kept] = messages(state);
    const spec = unlistedUnderlinesGone(state, [twice]);
    expect(spec).not.toBeNull();
    expect(messages(state.update(spec!).state)).toEqual([kept]);
    expect(messages(state.update(unlistedUnderlinesGone(state, [])!).state)).toEqual([]);
  });

  it("changes nothing while every underline is of a listed problem, moved lines and all", () => {
    const state = underlined([badType]);
    expect(unlistedUnderlinesGone(state, [{ ...badType, line: 9 }, twice])).toBeNull();
    expect(unlistedUnderlinesGone(EditorState.create({ doc: TEXT }), [])).toBeNull();
  });
});
