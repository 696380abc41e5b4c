import { describe, expect, it } from "vitest";
import type { StepStatus, StepView } from "../../api/types";
import { enclosingForeach, nodeOfPath, stepToOpen } from "./node-paths";
import { stepView } from "./test-support";

const step = (status: StepStatus, startedAt = 1): StepView => stepView(status, { startedAt });

describe("step paths and the canvas's nodes", () => {
  it("draws a path on its last step name: foreach items and parallel branches on their step's node", () => {
    expect(nodeOfPath("ask")).toBe("ask");
    expect(nodeOfPath("each[2].double")).toBe("double");
    expect(nodeOfPath("outer[1].inner[0].x")).toBe("x");
    expect(nodeOfPath("outer[1].inner")).toBe("inner");
    expect(nodeOfPath("each[2]")).toBe("each");
    expect(nodeOfPath("each[*].double")).toBe("double");
  });

  it("finds the foreach a path runs in", () => {
    expect(enclosingForeach("ask")).toBeNull();
    expect(enclosingForeach("each[2].double")).toBe("each");
    expect(enclosingForeach("outer[1].inner[0].x")).toBe("outer[1].inner");
    expect(enclosingForeach("outer[1].inner")).toBe("outer");
  });

  it("opens a node at the run that tells most: paused at, failed, running, else the last; a node not reached at its name", () => {
    const steps = {
      ask: step("COMPLETED"),
      "each[0].double": step("COMPLETED"),
      "each[1].double": step("RUNNING"),
      "each[2].double": step("FAILED"),
      "each[10].double": step("COMPLETED"),
    };
    expect(stepToOpen("ask", steps, null)).toBe("ask");
    expect(stepToOpen("double", steps, "each[0].double")).toBe("each[0].double");
    expect(stepToOpen("double", steps, null)).toBe("each[2].double");
    expect(stepToOpen("double", { ...steps, "each[2].double": step("COMPLETED") }, null)).toBe("each[1].double");
    expect(
      stepToOpen("double", { "each[2].double": step("COMPLETED"), "each[10].double": step("COMPLETED") }, null),
    ).toBe("each[10].double");
    expect(stepToOpen("last", steps, null)).toBe("last");
  });

  it("opens an item of a node's list at its step, a foreach's item at the step it ran first", () => {
    const steps = {
      each: step("COMPLETED"),
      "each[1].note": step("COMPLETED", 20),
      "each[1].double": step("COMPLETED", 10),
    };
    expect(stepToOpen("each[1].note", steps, null)).toBe("each[1].note");
    expect(stepToOpen("each[1]", steps, null)).toBe("each[1].double");
    expect(stepToOpen("each[5]", steps, null)).toBe("each[5]");
  });
});
