import { describe, expect, it } from "vitest";
import { lineDiff } from "./line-diff";

const lines = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe("lineDiff", () => {
  it("keeps every line of equal texts", () => {
    expect(lineDiff("a\nb", "a\nb")).toEqual([
      { op: "same", line: "a" },
      { op: "same", line: "b" },
    ]);
  });

  it("shows each line of both texts in order: a changed line as removed then added, the common ones kept", () => {
    expect(lineDiff("name: x\nsteps:\n  - a\n  - b\n", "name: y\nsteps:\n  - a\n  - c\n  - b\n")).toEqual([
      { op: "remove", line: "name: x" },
      { op: "add", line: "name: y" },
      { op: "same", line: "steps:" },
      { op: "same", line: "  - a" },
      { op: "add", line: "  - c" },
      { op: "same", line: "  - b" },
      { op: "same", line: "" },
    ]);
  });

  it("keeps a common line between changed ones", () => {
    const from = ["x1", "common", "x2"].join("\n");
    const to = ["y1", "common", "y2"].join("\n");
    expect(lineDiff(from, to).filter((l) => l.op === "same")).toEqual([{ op: "same", line: "common" }]);
  });

  it("past the cell budget, shows the middle between common head and tail as removed, then added", () => {
    const from = ["head", ...lines("x", 1000), "common", ...lines("x", 1000), "tail"];
    const to = ["head", ...lines("y", 1000), "common", ...lines("y", 1000), "tail"];
    const diff = lineDiff(from.join("\n"), to.join("\n"));
    expect(diff).toHaveLength(from.length + to.length - 2);
    expect(diff[0]).toEqual({ op: "same", line: "head" });
    expect(diff.slice(1, 2002).every((l) => l.op === "remove")).toBe(true);
    expect(diff.slice(2002, 4003).every((l) => l.op === "add")).toBe(true);
    expect(diff.at(-1)).toEqual({ op: "same", line: "tail" });
  });
});
