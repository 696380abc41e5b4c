import { describe, expect, it } from "vitest";
import { runnerBundles, waitFor } from "@wf/testing";
import { createCodeRunner } from "../code/index";
import { MAX_CONCURRENT_JS_RUNS } from "../code/runner-connection";
import { step } from "../code/testing/processes";
import { sandboxMetrics } from "./sandbox-metrics";

/** The value of a metric's sample named `name` (a histogram has several). */
async function sample(name: string): Promise<number | undefined> {
  for (const metric of sandboxMetrics) {
    const { name: metricName, values } = await metric.get();
    for (const v of values)
      if (("metricName" in v && v.metricName ? v.metricName : metricName) === name) return v.value;
  }
  return undefined;
}

describe("the sandbox runner pool's metrics", () => {
  it("count the runners, the runs in flight, and the runs that waited for one of a runner's JavaScript slots", async () => {
    // Counters are the process's: other test files in this worker may have counted before.
    const [runnersBefore, waitsBefore, waitedBefore] = [
      (await sample("wf_sandbox_runners")) ?? 0,
      (await sample("wf_sandbox_run_wait_seconds_count")) ?? 0,
      (await sample("wf_sandbox_run_wait_seconds_sum")) ?? 0,
    ];
    const runner = await createCodeRunner({ pool: 1, ...runnerBundles() });
    try {
      expect(await sample("wf_sandbox_runners")).toBe(runnersBefore + 1);
      // Two runs more than a runner takes at once, of one execution (a team owner's share is more): two wait.
      const busy = "const end = Date.now() + 300; while (Date.now() < end) {} return 1";
      const count = MAX_CONCURRENT_JS_RUNS + 2;
      const runs = Array.from({ length: count }, () =>
        runner.run(step("javascript", busy, { execution: "e1", owner: "o1", ownerPlan: "team" })),
      );
      await waitFor(async () => (await sample("wf_sandbox_runs_in_flight")) === count, { what: "every run in flight" });
      for (const result of await Promise.all(runs)) expect(result).toMatchObject({ ok: true, output: 1 });
      expect(await sample("wf_sandbox_runs_in_flight")).toBe(0);
      expect(await sample("wf_sandbox_run_wait_seconds_count")).toBe(waitsBefore + 2);
      expect((await sample("wf_sandbox_run_wait_seconds_sum"))! - waitedBefore).toBeGreaterThan(0.1);
    } finally {
      await runner.close();
    }
    expect(await sample("wf_sandbox_runners")).toBe(runnersBefore);
  });
});
