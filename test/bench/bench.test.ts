import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsServerHandle } from "@wf/shared/testing";
import { startNatsServer } from "../support/runtime";
import { QUICK_SIZES, type BenchSizes } from "./options";
import { analyse } from "./report";
import { render } from "./render";
import { runSuite } from "./suite";

/** The quick mode's code paths at toy sizes: this checks the harness works, never how fast anything is. */
const TINY: BenchSizes = {
  ...QUICK_SIZES,
  chainSteps: 3,
  chainWarmup: 1,
  chainRuns: 2,
  pythonRuns: 1,
  spawnSamples: 1,
  throughputN: 20,
  throughputWarmupN: 5,
  publishWindow: 16,
  throughputConcurrency: 16,
  rawPublishN: 200,
  casKeys: 4,
  casUpdatesPerKey: 10,
};

let server: NatsServerHandle;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

describe("bench harness (smoke)", () => {
  it("runs every benchmark to completion and reports every figure", async () => {
    const result = analyse(await runSuite(server, TINY, { quick: true }));

    for (const chain of Object.values(result.chains)) {
      expect(chain.failures).toEqual([]);
      expect(chain.allCompleted).toBe(true);
      expect(chain.completed).toBe(chain.runs);
      expect(chain.samplesMs).toHaveLength(chain.runs);
      expect(chain.writesPerRun).toBeGreaterThanOrEqual(chain.steps);
    }
    expect(result.chains.javascript.runs).toBe(TINY.chainRuns);
    expect(result.chains.python.runs).toBe(TINY.pythonRuns);
    for (const t of [result.throughput.javascript, result.throughput.transform]) {
      expect(t).not.toBeNull();
      expect(t!.allCompleted).toBe(true);
      expect(t!.completed).toBe(TINY.throughputN);
      expect(t!.failed + t!.missing).toBe(0);
    }

    expect(Object.keys(result).sort()).toEqual(
      [
        "aims",
        "chains",
        "comparisons",
        "finishedAt",
        "machine",
        "naiveSpawnMs",
        "published",
        "quick",
        "raw",
        "rawBoundPerSec",
        "seconds",
        "sizes",
        "startedAt",
        "throughput",
        "verdicts",
      ].sort(),
    );
    for (const figure of [
      result.raw.publishPerSec,
      result.raw.casPerSec,
      result.chains.javascript.endToEndMs.median,
      result.chains.javascript.floorMs.median,
      result.chains.python.endToEndMs.median,
      result.naiveSpawnMs.javascript.median,
      result.naiveSpawnMs.python.median,
      result.throughput.javascript.steadyPerSec,
      result.rawBoundPerSec.javascript,
    ]) {
      expect(Number.isFinite(figure)).toBe(true);
    }
    expect(result.verdicts).toHaveLength(4);
    for (const v of result.verdicts) expect(typeof v.met).toBe("boolean");
    for (const c of result.comparisons) expect(Number.isFinite(c.ratio)).toBe(true);
    expect(render(result)).toContain("Verdicts");
  }, 120_000);
});
