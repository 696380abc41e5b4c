import { describe, expect, it } from "vitest";
import { stepView } from "./test-support";
import { buildStepTree, type TreeNode } from "./step-tree";
import { axisTicks, buildTimeline, opensByDefault, OPEN_LANES_UP_TO } from "./timeline";

const definition = {
  name: "timed",
  steps: [
    { name: "fetch", type: "code" },
    {
      name: "loop",
      type: "foreach",
      steps: [
        { name: "a", type: "transform" },
        { name: "b", type: "code" },
      ],
    },
    { name: "gate", type: "transform" },
    { name: "pause", type: "wait" },
  ],
};

const T = 1_000_000;
const at = (start: number, end: number | null, status: Parameters<typeof stepView>[0] = "COMPLETED", more = {}) =>
  stepView(status, { startedAt: T + start, completedAt: end === null ? null : T + end, ...more });

/** Each row as "label: start-end" of its bars, indented by depth. */
function rows(timeline: ReturnType<typeof buildTimeline>): string[] {
  return timeline.rows.map(
    (r) => `${"  ".repeat(r.depth)}${r.label}: ${r.bars.map((b) => `${b.name} ${b.start}-${b.end}`).join(", ")}`,
  );
}

describe("the run's timeline", () => {
  const steps = {
    fetch: at(0, 100),
    loop: at(100, 400),
    "loop[0].a": at(100, 150),
    "loop[0].b": at(150, 300, "COMPLETED", { attempts: 2 }),
    "loop[1].a": at(120, 400),
    gate: at(400, null, "AWAITING_APPROVAL"),
    pause: at(450, null, "RUNNING"),
  };
  const tree = buildStepTree(definition, steps);
  const open = (node: TreeNode) => opensByDefault(node);

  it("puts every step on one axis from the first start, a foreach's items as lanes of their steps side by side", () => {
    const timeline = buildTimeline(tree, steps, T + 500, open);
    expect(rows(timeline)).toEqual([
      "fetch: fetch 0-100",
      "loop: loop 100-400",
      "  item 0: a 100-150, b 150-300",
      "  item 1: a 120-400",
      "gate: gate 400-500",
      "pause: pause 450-500",
    ]);
    expect(timeline.span).toBe(500);
    expect(timeline.rows.find((r) => r.label === "item 0")?.bars[1]?.attempts).toBe(2);
  });

  it("opens a lane into its steps' rows", () => {
    const timeline = buildTimeline(tree, steps, T + 500, (node) => opensByDefault(node) || node.key === "loop[0]");
    expect(rows(timeline).slice(1, 6)).toEqual([
      "loop: loop 100-400",
      "  item 0: a 100-150, b 150-300",
      "    a: a 100-150",
      "    b: b 150-300",
      "  item 1: a 120-400",
    ]);
    expect(timeline.rows[2]).toMatchObject({ kind: "lane", inside: 2, open: true, path: null });
  });

  it("ends what still runs or waits at now, hatches waits, and follows the step started last", () => {
    const timeline = buildTimeline(tree, steps, T + 900, open);
    const bar = (label: string) => timeline.rows.find((r) => r.label === label)!.bars[0]!;
    expect([bar("gate").end, bar("gate").waiting]).toEqual([900, true]);
    expect([bar("pause").end, bar("pause").waiting]).toEqual([900, true]);
    expect(bar("fetch").waiting).toBe(false);
    expect(timeline.running).toBe("pause");
  });

  it("hides a foreach's lanes when it is collapsed, and starts collapsed past OPEN_LANES_UP_TO items", () => {
    const closed = buildTimeline(tree, steps, T + 500, () => false);
    expect(closed.rows.map((r) => r.label)).toEqual(["fetch", "loop", "gate", "pause"]);
    expect(closed.rows[1]).toMatchObject({ inside: 2, open: false });

    const many = Object.fromEntries(
      Array.from({ length: OPEN_LANES_UP_TO + 1 }, (_, i) => [`loop[${i}].a`, at(i, i + 1)]),
    );
    const big = buildStepTree(definition, { loop: at(0, 30), ...many });
    expect(opensByDefault(big[1]!)).toBe(false);
    expect(opensByDefault(tree[1]!)).toBe(true);
  });

  it("marks reused steps at the axis's start and keeps their first run's times off it", () => {
    const rerun = {
      fetch: stepView("COMPLETED", { startedAt: T - 60_000, completedAt: T - 59_000, reused: true }),
      gate: at(0, 40),
    };
    const timeline = buildTimeline(buildStepTree(definition, rerun), rerun, T + 100, open);
    expect(timeline.rows[0]!.bars[0]).toMatchObject({ reused: true, edited: false, start: 0, end: 0 });
    // One a debugger's edit changed is marked so.
    const edited = { ...rerun, fetch: { ...rerun.fetch, edited: true } };
    expect(buildTimeline(buildStepTree(definition, edited), edited, T + 100, open).rows[0]!.bars[0]).toMatchObject({
      reused: true,
      edited: true,
    });
    expect(timeline.span).toBe(40);
    expect(timeline.rows.find((r) => r.label === "loop")!.bars).toEqual([]);
  });

  it("marks the axis at round durations", () => {
    expect(axisTicks(10_000, 5)).toEqual([0, 2000, 4000, 6000, 8000, 10_000]);
    expect(axisTicks(730, 4)).toEqual([0, 200, 400, 600]);
  });
});
