import { describe, expect, it } from "vitest";
import { ownerLanes, START_LANES } from "../execution/start-lanes";
import { LANE_BACKLOG_REPORT_MS, LANE_MARGIN, LaneBacklog } from "./lane-backlog";

const OWNER = "owner-a";
const [FIRST, SECOND] = ownerLanes(OWNER);

function report(executor: string, lanes: Record<number, number>): string {
  const pending = new Array<number>(START_LANES).fill(0);
  for (const [lane, n] of Object.entries(lanes)) pending[Number(lane)] = n;
  return JSON.stringify({ executor, pending });
}

describe("LaneBacklog", () => {
  it("gives every owner two different lanes, the first its ownerLane", () => {
    for (let i = 0; i < 500; i++) {
      const [first, second] = ownerLanes(`owner-${i}`);
      expect(first).not.toBe(second);
      expect(second).toBeGreaterThanOrEqual(0);
      expect(second).toBeLessThan(START_LANES);
    }
    // Second lanes spread over all the others.
    const seconds = new Set(
      Array.from({ length: 2000 }, (_, i) => ownerLanes(`o${i}`)).map(([f, s]) => (s - f + 16) % 16),
    );
    expect(seconds.size).toBe(START_LANES - 1);
  });

  it("keeps an owner in its first lane until that lane is more than LANE_MARGIN busier than its second", () => {
    let now = 1_000;
    const lanes = new LaneBacklog(() => now);
    expect(lanes.choose(OWNER)).toBe(FIRST);
    lanes.heard(report("x", { [FIRST]: LANE_MARGIN }));
    expect(lanes.choose(OWNER)).toBe(FIRST);
    lanes.heard(report("x", { [FIRST]: LANE_MARGIN + 1 }));
    expect(lanes.choose(OWNER)).toBe(SECOND);
    lanes.heard(report("x", { [FIRST]: 50, [SECOND]: 45 }));
    expect(lanes.choose(OWNER)).toBe(FIRST);
    now += 10;
    expect(lanes.busy(FIRST)).toBe(50);
  });

  it("takes the most any executor reported, and forgets an executor silent for three reports' time", () => {
    let now = 1_000;
    const lanes = new LaneBacklog(() => now);
    lanes.heard(report("x", { [FIRST]: 30 }));
    now += LANE_BACKLOG_REPORT_MS;
    lanes.heard(report("y", { [FIRST]: 10 }));
    expect(lanes.busy(FIRST)).toBe(30);
    expect(lanes.choose(OWNER)).toBe(SECOND);
    now += 2 * LANE_BACKLOG_REPORT_MS + 1;
    expect(lanes.busy(FIRST)).toBe(10);
    now += LANE_BACKLOG_REPORT_MS;
    expect(lanes.busy(FIRST)).toBe(0);
    expect(lanes.choose(OWNER)).toBe(FIRST);
  });

  it("counts its own starts for a second at most, as the reports will", () => {
    let now = 1_000;
    const lanes = new LaneBacklog(() => now);
    for (let i = 0; i <= LANE_MARGIN; i++) lanes.sent(FIRST);
    expect(lanes.choose(OWNER)).toBe(SECOND);
    now += LANE_BACKLOG_REPORT_MS;
    expect(lanes.busy(FIRST)).toBe(LANE_MARGIN + 1);
    lanes.sent(SECOND);
    now += LANE_BACKLOG_REPORT_MS;
    expect([lanes.busy(FIRST), lanes.busy(SECOND)]).toEqual([0, 1]);
    now += 2 * LANE_BACKLOG_REPORT_MS;
    expect(lanes.busy(SECOND)).toBe(0);
  });

  it("judges both of an owner's lanes on one read of the reports", () => {
    // A clock that moves on at every look, chosen around the time the report is forgotten: it counts for both lanes
    // or for neither, never for the first alone.
    for (let late = -10; late <= 10; late++) {
      let now = 1_000;
      const lanes = new LaneBacklog(() => now++);
      lanes.heard(report("x", { [FIRST]: 20, [SECOND]: 20 }));
      now += 3 * LANE_BACKLOG_REPORT_MS + late;
      expect(lanes.choose(OWNER), `${late} ms from the report's end`).toBe(FIRST);
    }
  });

  it("drops a report that does not parse", () => {
    const lanes = new LaneBacklog(() => 1_000);
    lanes.heard("not json");
    lanes.heard(JSON.stringify({ executor: "x", pending: [1, 2] }));
    lanes.heard(JSON.stringify({ executor: "x", pending: new Array(START_LANES).fill(-1) }));
    expect(Array.from({ length: START_LANES }, (_, lane) => lanes.busy(lane)).every((n) => n === 0)).toBe(true);
  });
});
