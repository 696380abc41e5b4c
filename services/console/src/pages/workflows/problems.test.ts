import { describe, expect, it } from "vitest";
import { graph, type CanvasIssue } from "@wf/shared/canvas";
import { inTextOrder, problemCount, shownProblems } from "./problems";

const issue = (line: number, column: number, message: string, node?: string): CanvasIssue => ({
  line,
  column,
  message,
  path: "",
  node,
  other: undefined,
});

const where = ({ line, column, message }: { line: number; column: number; message: string }) =>
  `${line}:${column} ${message}`;

describe("inTextOrder", () => {
  it("lists every problem once, in the order of the text", () => {
    const dup = "duplicate step name `fetch`";
    expect(
      inTextOrder([
        issue(16, 11, dup, "pause"),
        issue(2, 7, "YAML syntax error"),
        issue(16, 11, dup, "fetch"),
        issue(16, 3, "unknown field `x`", "pause"),
      ]).map(where),
    ).toEqual(["2:7 YAML syntax error", "16:3 unknown field `x`", `16:11 ${dup}`]);
    expect(inTextOrder([])).toEqual([]);
  });

  it("counts them in words", () => {
    expect([1, 2].map(problemCount)).toEqual(["1 problem", "2 problems"]);
  });
});

describe("shownProblems", () => {
  const open = `name: open
steps:
  - { name: fetch, type: transform, output: { id: 7 } }
  - { name: use, type: transform, output: "Use {{ steps.fetch.output." }
`;

  it("lists a template left open, at its line and column, from the canvas's reading of the text", () => {
    expect(shownProblems(open, graph(open).issues, null)).toEqual({
      issues: [
        {
          path: "steps[1].output",
          line: 4,
          column: 48,
          message: "`{{` is never closed: add `}}` after the expression",
          node: "use",
          other: undefined,
        },
      ],
      fromService: false,
    });
  });

  it("lists the service's answer while it is about the text read, and the text's own problems once it is not", () => {
    const service = { text: open, issues: [{ path: "steps", line: 2, column: 1, message: "over the plan's 1 step" }] };
    expect(shownProblems(open, graph(open).issues, service)).toEqual({ issues: service.issues, fromService: true });
    const closed = open.replace("output.", "output.id }}");
    expect(shownProblems(closed, graph(closed).issues, service)).toEqual({ issues: [], fromService: false });
  });
});
