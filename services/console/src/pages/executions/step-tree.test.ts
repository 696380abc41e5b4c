import { describe, expect, it } from "vitest";
import { stepView } from "./test-support";
import { breakpointPaths, buildStepTree, groupStatus, topLevelSteps, type TreeNode } from "./step-tree";

const definition = {
  name: "nested",
  steps: [
    { name: "fetch", type: "code" },
    { name: "loop", type: "foreach", steps: [{ name: "each", type: "transform" }] },
    {
      name: "both",
      type: "parallel",
      branches: { left: [{ name: "l1", type: "transform" }], right: [{ name: "r1", type: "transform" }] },
    },
  ],
};

/** The tree as path lines, indented by depth: what a person sees in the steps table. */
function outline(nodes: TreeNode[], depth = 0): string[] {
  return nodes.flatMap((n) => [
    `${"  ".repeat(depth)}${n.kind === "step" ? n.path : n.label}`,
    ...outline(n.children, depth + 1),
  ]);
}

describe("the step tree", () => {
  it("nests foreach items (by the indexes recorded, in order) and parallel branches (their steps at their own names)", () => {
    const steps = {
      fetch: stepView("COMPLETED"),
      loop: stepView("RUNNING"),
      "loop[10].each": stepView("RUNNING"),
      "loop[2].each": stepView("COMPLETED"),
      l1: stepView("COMPLETED"),
    };
    const tree = buildStepTree(definition, steps);
    expect(outline(tree)).toEqual([
      "fetch",
      "loop",
      "  item 2",
      "    loop[2].each",
      "  item 10",
      "    loop[10].each",
      "both",
      "  branch left",
      "    l1",
      "  branch right",
      "    r1",
    ]);
    expect(topLevelSteps(tree)).toEqual(["fetch", "loop", "both"]);
    const [, loop, both] = tree;
    expect(groupStatus(loop!.children[1]!, steps)).toBe("RUNNING");
    expect(groupStatus(loop!.children[0]!, steps)).toBe("COMPLETED");
    // A branch whose step has not started has nothing to say yet.
    expect(groupStatus(both!.children[1]!, steps)).toBeNull();
  });

  it("lists a recorded path the definition does not explain at the end, and survives a definition it cannot read", () => {
    expect(outline(buildStepTree(definition, { ghost: stepView("FAILED") })).at(-1)).toBe("ghost");
    expect(outline(buildStepTree("not a workflow", { a: stepView("COMPLETED") }))).toEqual(["a"]);
  });

  it("offers breakpoint paths with [*] for a foreach's steps", () => {
    expect(breakpointPaths(definition)).toEqual(["fetch", "loop", "loop[*].each", "both", "l1", "r1"]);
  });
});
