import { describe, expect, it } from "vitest";
import { EGRESS_TEST_ALLOWANCE } from "../support/egress-allowance";
import { ENTRIES, startServiceProcess } from "../support/processes";
import { run, startRuntime, testConfig, waitFor, waitForStatus } from "../support/runtime";
import { sideEffects, slowRecordedStep } from "../support/side-effects";
import { useNatsServer } from "@wf/testing/nats-connection";

/**
 * SIGTERM, as an orchestrator stops a replica: the executor finishes the step in hand, hands
 * the execution over between two steps, and exits; another replica goes on at once, with no
 * step run twice and no execution interrupted (those of the v1 API included).
 */
const nats = useNatsServer();

describe("an executor stopped with SIGTERM", () => {
  it("finishes its step, hands the execution over and exits; another replica completes it", async () => {
    const ns = `graceful${Date.now() % 100000}`;
    const fx = await sideEffects();
    // A lease far longer than the test: a takeover by lease would time it out.
    const env = {
      NATS_URL: nats.server.url,
      WF_NAMESPACE: ns,
      WF_EXEC_LEASE_MS: "120000",
      WF_STOP_GRACE_MS: "10000",
      ...EGRESS_TEST_ALLOWANCE,
    };
    const first = await startServiceProcess(ENTRIES.executor, env, ["executor ready"]);
    const client = await startRuntime(testConfig(nats.server, { WF_NAMESPACE: ns }), {
      executor: false,
      scheduler: false,
    });
    try {
      const id = await run(
        client.platform,
        `
name: handed-over
steps:
  - { name: first, type: transform, output: 1 }
${slowRecordedStep(fx, "slow", "slow", "2")}
  - name: last
    type: code
    language: bash
    network: { allow: ["${fx.allow}"] }
    code: |
      curl -s -o /dev/null -X POST --data run ${fx.url}/last
      echo 3
`,
        { triggerSource: "open_api" },
      );
      await waitFor(() => fx.lines("slow").length === 1, { what: "the slow step to start" });
      const stopped = await first.stop();
      expect(stopped).toEqual({ code: 0, signal: null });
      const afterStop = await client.platform.store.executions.get(id);
      expect(afterStop?.value.steps.slow?.status).toBe("COMPLETED");
      expect(afterStop?.value.holder).toBeNull();
      expect(afterStop?.value.steps.last).toBeUndefined();

      const second = await startServiceProcess(ENTRIES.executor, env, ["executor ready"]);
      try {
        const done = await waitForStatus(client.platform, id, undefined, 20_000);
        expect(done.status).toBe("COMPLETED");
        expect(done.output).toBe(3);
        expect([fx.lines("slow").length, fx.lines("last").length]).toEqual([1, 1]);
      } finally {
        await second.kill();
      }
    } finally {
      await first.kill();
      await client.stop();
    }
  });
});
