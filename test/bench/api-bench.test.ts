import { describe, expect, it } from "vitest";
import { renderApiBench, runApiBench } from "./api-bench";
import { useNatsServer } from "@wf/testing/nats-connection";

const nats = useNatsServer();

describe("API bench harness (smoke)", () => {
  it("drives both routes and reports every figure; every request of both is accepted", async () => {
    const r = await runApiBench(nats.server, { connections: 4, warmupMs: 100, durationMs: 500 });
    for (const load of [r.bare, r.api]) {
      expect(load.requests).toBeGreaterThan(0);
      expect(Object.keys(load.statuses)).toEqual(["202"]);
      for (const figure of [load.perSec, load.latencyMs.p50, load.latencyMs.p99])
        expect(Number.isFinite(figure)).toBe(true);
    }
    expect(renderApiBench(r)).toContain("authenticated start / bare");
  }, 60_000);
});
