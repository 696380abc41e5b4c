import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { countSteps, parseWorkflow, walkSteps } from "./index";

const example = readFileSync(new URL("./fixtures/example.yaml", import.meta.url), "utf8");

describe("walkSteps and countSteps", () => {
  it("visits nested steps in document order with their parent chain", () => {
    const result = parseWorkflow(example);
    if (!result.ok) throw new Error("the example must parse");
    const seen: string[] = [];
    walkSteps(result.workflow.steps, (step, parents) =>
      seen.push([...parents.map((p) => p.name), step.name].join("/")),
    );
    expect(seen).toEqual([
      "fetch",
      "classify",
      "summary",
      "apply",
      "each",
      "each/echo",
      "both",
      "both/l1",
      "both/r1",
      "pause",
      "child",
      "result",
    ]);
    expect(countSteps(result.workflow)).toBe(9);
  });
});
