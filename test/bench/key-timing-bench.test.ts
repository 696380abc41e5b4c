import { describe, expect, it } from "vitest";
import { renderKeyTimingBench, runKeyTimingBench } from "./key-timing";
import { useNatsServer } from "@wf/testing/nats-connection";

const nats = useNatsServer();

describe("bench harness (smoke): API key timing", () => {
  it("times both refusals in every part, each answered as expected, and reports every figure", async () => {
    const sizes = { warmup: 5, rounds: 40, httpRounds: 20 };
    const r = await runKeyTimingBench(nats.server, sizes);
    expect(r.wrongAnswers).toBe(0);
    for (const [p, n] of [
      [r.verify, 40],
      [r.storeRead, 40],
      [r.serverAnswer, 40],
      [r.http, 20],
    ] as const) {
      expect(p.unknownUs.n).toBe(n);
      expect(p.knownUs.n).toBe(n);
      for (const figure of [p.unknownUs.median, p.knownUs.median, p.differenceUs, p.ratio])
        expect(Number.isFinite(figure)).toBe(true);
    }
    expect(r.secretCheckUs.n).toBe(40);
    expect(Number.isFinite(r.residualUs)).toBe(true);
    const text = renderKeyTimingBench(r);
    expect(text).toContain("baseline: server's answer");
    expect(text).toContain("every answer was the expected refusal");
  }, 60_000);
});
