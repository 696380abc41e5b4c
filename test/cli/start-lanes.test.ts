import { describe, expect, it } from "vitest";
import { laneOf, ownerLanes, type ExecutionSnapshot } from "@wf/shared/execution";
import { consumerNames, LANE_MARGIN, streamNames } from "@wf/shared/nats";
import { FLOOD, sharingOwner } from "../support/lane-owners";
import { run, waitFor, waitForStatus } from "../support/runtime";
import { jsonLines, runCli, useTestService, workflowFiles } from "./cli-process";

/** Holds an executor's slot for a second without CPU: a wait under the hold threshold stays in hand. */
const HOLDING = `
name: holding
steps:
  - name: hold
    type: wait
    seconds: 1
`;

const files = await workflowFiles({
  quick: `
name: quick
steps:
  - { name: first, type: transform, output: 1 }
  - { name: second, type: transform, output: "{{ steps.first.output + 1 }}" }
`,
});

/** An owner whose first lane is the flooding owner's, and whose second lane is neither of the flooding owner's. */
const SHARING = sharingOwner();
const [FIRST, SECOND] = ownerLanes(SHARING);

// Four executions at once: forty starts of 1 s make a backlog of about 10 s.
const service = useTestService({ WF_EXEC_CONCURRENCY: "4", WF_EXEC_YIELD_CONCURRENCY: "0", WF_HOLD_WAIT_MS: "30000" });

/** The execution `wf <args> --json` ran, which ended COMPLETED. */
async function ranByCli(args: string[]): Promise<string> {
  const r = await runCli([...args, "--json"], service().env);
  expect(r.code, r.stderr).toBe(0);
  return String(jsonLines(r.stdout).at(-1)!.executionId);
}

describe("a start from wf run and wf rerun", () => {
  it("goes to its owner's first lane while no lane has a backlog", async () => {
    const ran = await ranByCli(["run", files.quick, "--owner", SHARING]);
    const rerun = await ranByCli(["rerun", ran, "--from", "second"]);
    expect([laneOf(ran), laneOf(rerun)]).toEqual([FIRST, FIRST]);
  });

  // Judged by the records' times, not by the clock: in the flooded first lane, the start would run after what was left
  // of the backlog when it came; in the second, beside it.
  it("goes to its owner's second lane while another owner's backlog fills the first, and runs beside it", async () => {
    const source = await ranByCli(["run", files.quick, "--owner", SHARING]);
    const p = service().rt.platform;
    const flood = await Promise.all(Array.from({ length: 40 }, () => run(p, HOLDING, { ownerId: FLOOD })));
    expect(new Set(flood.map(laneOf))).toEqual(new Set([FIRST]));
    const stream = streamNames(p.config.WF_NAMESPACE).cmd;
    await waitFor(
      async () =>
        (await p.jsm.consumers.info(stream, consumerNames().executorLane(FIRST))).num_pending > LANE_MARGIN
          ? true
          : undefined,
      { what: "the flood to wait in its lane" },
    );

    const started = await Promise.all([
      ranByCli(["run", files.quick, "--owner", SHARING]),
      ranByCli(["rerun", source, "--from", "second"]),
    ]);
    expect(started.map(laneOf)).toEqual([SECOND, SECOND]);

    const floodEnds = (await Promise.all(flood.map((id) => waitForStatus(p, id, undefined, 60_000)))).map(
      (s) => s.completedAt!,
    );
    for (const id of started) {
      const s: ExecutionSnapshot = await waitForStatus(p, id);
      const left = floodEnds.filter((end) => end > s.createdAt).length;
      const ahead = floodEnds.filter((end) => end > s.createdAt && end <= s.startedAt!).length;
      console.log(`wf's start ${id}: ${ahead} of the ${left} executions of the backlog left ended before it ran`);
      expect(left, "the backlog left when it was started").toBeGreaterThan(12);
      expect(ahead, "the backlog's executions that went first").toBeLessThan(8);
    }
  });
});
