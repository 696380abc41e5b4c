import { describe, expect, it } from "vitest";
import { graph } from "@wf/shared/canvas";
import { flowEdges, flowNodes, keepUnchanged, type FlowNode } from "./elements";
import { layoutGraph } from "./layout";

const TEXT = `name: three
steps:
  - { name: fetch, type: wait, seconds: 1 }
  - { name: shape, type: transform, output: "{{ steps.fetch.output }}", timeout: 5 }
  - { name: done, type: wait, seconds: 1 }
`;

const OPTIONS = { selected: null, overlay: undefined, editable: true, gutter: false };

function nodesOf(text: string, previous: FlowNode[] = []): FlowNode[] {
  const g = graph(text);
  return keepUnchanged(previous, flowNodes(g, layoutGraph(g), OPTIONS));
}

describe("the elements xyflow draws", () => {
  it("gives each node its box's size as measured, so that xyflow has nothing to report once it has drawn it", () => {
    for (const node of nodesOf(TEXT)) expect(node.measured).toEqual({ width: node.width, height: node.height });
  });

  it("keeps the object of each node that shows the same, and the whole list when nothing drawn changed", () => {
    const before = nodesOf(TEXT);
    // A field the canvas does not show.
    expect(nodesOf(TEXT.replace("seconds: 1 }\n  - { name: shape", "seconds: 2 }\n  - { name: shape"), before)).toBe(
      before,
    );
    // A badge the canvas shows: that node only is new.
    const after = nodesOf(TEXT.replace("timeout: 5", "timeout: 50"), before);
    expect(after.map((node, i) => node === before[i])).toEqual([true, false, true]);
  });

  it("marks both steps of a duplicate name with the problem", () => {
    const issues = nodesOf(TEXT.replace("name: done", "name: fetch")).map((node) =>
      node.type === "step" ? [node.id, node.data.issues] : [],
    );
    const problem = {
      line: 5,
      column: 13,
      message: expect.stringContaining("duplicate step name `fetch`: the step at line 3 already uses it;"),
    };
    expect(issues).toEqual([
      ["fetch", [problem]],
      ["shape", []],
      ["steps[2]", [problem]],
    ]);
  });

  it("puts a problem in a new step being written after a step below that step, apart from its own", () => {
    const g = graph(TEXT);
    const issue = { line: 4, column: 3, path: "", message: "YAML syntax error", node: undefined, other: undefined };
    const nodes = flowNodes({ ...g, issues: [{ ...issue, after: "shape" }] }, layoutGraph(g), OPTIONS);
    expect(nodes.map((node) => (node.type === "step" ? [node.id, node.data.issues, node.data.after] : []))).toEqual([
      ["fetch", [], []],
      ["shape", [], [{ line: 4, column: 3, message: "YAML syntax error" }]],
      ["done", [], []],
    ]);
  });

  it("keeps the object of each edge drawn before, by its id", () => {
    const before = flowEdges(graph(TEXT));
    const after = flowEdges(graph(TEXT.replace("name: done", "name: finish")), before);
    expect(after.map((edge) => [edge.id, before.includes(edge)])).toEqual([
      ["sequence:fetch->shape", true],
      ["sequence:shape->finish", false],
      ["data:fetch->shape", true],
    ]);
  });
});
