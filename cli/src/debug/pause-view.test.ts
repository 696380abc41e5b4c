import { describe, expect, it } from "vitest";
import type { WaitingPoints } from "@wf/shared/execution";
import { formatBehind } from "./pause-view";

const point = (stepPath: string, phase: "after" | "error", reason: string): WaitingPoints["waiting"][number] => ({
  stepPath,
  phase,
  occurrence: 1,
  items: [],
  branch: null,
  breakpoints: [],
  reason,
});

describe("what waits behind a pause, in the terminal", () => {
  it("lists the waiting points, then the failures held, each in its order, and nothing when none", () => {
    const behind = {
      waiting: [
        point("loop[3].x", "after", "After step breakpoint bp2"),
        point("y", "after", "Watch w: its step changed"),
      ],
      held: [point("z", "error", "Attempt 1 failed: boom")],
    };
    expect(formatBehind(behind)).toEqual([
      "  waiting their turn (2):",
      "    loop[3].x after: After step breakpoint bp2",
      "    y after: Watch w: its step changed",
      "  held failures (1):",
      "    z error: Attempt 1 failed: boom",
    ]);
    expect(formatBehind({ waiting: [], held: behind.held })).toEqual([
      "  held failures (1):",
      "    z error: Attempt 1 failed: boom",
    ]);
    expect(formatBehind({ waiting: [], held: [] })).toEqual([]);
  });
});
