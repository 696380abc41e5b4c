import { describe, expect, it } from "vitest";
import type { CanvasIssue } from "@wf/shared/canvas";
import { bannerProblems, problemCount } from "./banner-problems";

const issue = (line: number, column: number, message: string, node?: string): CanvasIssue => ({
  line,
  column,
  message,
  path: "",
  node,
  other: undefined,
});

describe("bannerProblems", () => {
  it("lists every problem once, in the order of the text", () => {
    const dup = "duplicate step name `fetch`";
    expect(
      bannerProblems([
        issue(16, 11, dup, "pause"),
        issue(2, 7, "YAML syntax error"),
        issue(16, 11, dup, "fetch"),
        issue(16, 3, "unknown field `x`", "pause"),
      ]).map(({ line, column, message }) => `${line}:${column} ${message}`),
    ).toEqual(["2:7 YAML syntax error", "16:3 unknown field `x`", `16:11 ${dup}`]);
    expect(bannerProblems([])).toEqual([]);
  });

  it("counts them in words", () => {
    expect([1, 2].map(problemCount)).toEqual(["1 problem", "2 problems"]);
  });
});
