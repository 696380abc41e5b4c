import { describe, expect, it } from "vitest";
import { ExecutionStatusView } from "@wf/shared/api";
import { commandsInHand, endedEventTypes, waitFor } from "../support/runtime";
import { spinStep } from "../support/spin-step";
import { account, call, statusReached, storeWorkflow, useApi, type Account, type ApiEnv } from "./support";

/**
 * A start whose first steps are pure has its record written by the run's first write, not when the
 * executor takes the command (docs/architecture.md#durability-by-effect): once for a quick pure run,
 * after a second for a long one, and never over a record another writer made meanwhile.
 */
const api = useApi({ runtime: true });

async function started(who: Account, yaml: string): Promise<string> {
  const w = await storeWorkflow(api(), who.user.id, yaml);
  const r = await call(api(), "POST", `/api/v1/workflows/${w.id}/executions`, { key: who.key });
  expect(r.statusCode).toBe(202);
  return r.json().executionId as string;
}

async function statusOf(who: Account, id: string): Promise<ExecutionStatusView> {
  return ExecutionStatusView.parse((await call(api(), "GET", `/api/v1/executions/${id}`, { key: who.key })).json());
}

function reached(who: Account, id: string, statuses: string[]): Promise<ExecutionStatusView> {
  return statusReached(api(), who.key, id, statuses);
}

/** Writes of execution records so far: the records' stream keeps one message per key, so its last sequence counts them. */
async function recordWrites(env: ApiEnv): Promise<number> {
  return (await env.platform.jsm.streams.info(`KV_${env.ns}_executions`)).state.last_seq;
}

describe("a start whose first steps are pure", () => {
  it("is written once when its run ends within the second, at its end: read PENDING, then COMPLETED", async () => {
    const me = await account(api());
    const yaml = `
name: quick-pure
steps:
  - { name: a, type: transform, output: 1 }
  - { name: b, type: code, language: javascript, code: "return 2" }
  - { name: c, type: transform, output: "{{ steps.b.output + 1 }}" }
`;
    // The first JavaScript step of a runner waits for its isolate to be made: a run of its own.
    await reached(me, await started(me, yaml), ["COMPLETED"]);
    const before = await recordWrites(api());
    const id = await started(me, yaml);
    expect((await reached(me, id, ["COMPLETED"])).status).toBe("COMPLETED");
    expect((await recordWrites(api())) - before).toBe(1);
    expect(await endedEventTypes(api().platform.jsm, api().ns, id)).toEqual([
      "exec_started",
      "step_started",
      "step_completed",
      "step_started",
      "step_completed",
      "step_started",
      "step_completed",
      "exec_completed",
    ]);
  });

  it("reads RUNNING, its step running, once the second has passed, though the step has not ended", async () => {
    const me = await account(api());
    const id = await started(me, `name: long-pure\nsteps:${spinStep("spin", 4_000)}\n`);
    const midway = await reached(me, id, ["RUNNING", "COMPLETED"]);
    expect(midway.status).toBe("RUNNING");
    expect(midway.currentStep).toBe("spin");
    expect((await reached(me, id, ["COMPLETED"])).status).toBe("COMPLETED");
  });

  it("cancelled before its first write ends CANCELLED once: nothing of what it ran is published", async () => {
    const me = await account(api());
    const id = await started(
      me,
      `name: cancelled-pure\nsteps:${spinStep("spin", 3_000)}\n  - { name: after, type: transform, output: 1 }\n`,
    );
    await waitFor(async () => (await commandsInHand(api().platform.jsm, api().ns)) > 0, {
      what: "the start to be taken",
    });
    // The run has not written yet: the execution reads as its start left it.
    expect((await statusOf(me, id)).status).toBe("PENDING");
    const cancel = await call(api(), "POST", `/api/v1/executions/${id}/cancel`, { key: me.key });
    expect(cancel.statusCode).toBe(200);
    expect((await reached(me, id, ["CANCELLED", "COMPLETED", "FAILED"])).status).toBe("CANCELLED");
    await waitFor(async () => (await commandsInHand(api().platform.jsm, api().ns)) === 0, {
      what: "the start to be acknowledged",
    });
    const types = await endedEventTypes(api().platform.jsm, api().ns, id);
    expect(types.filter((t) => t === "exec_cancelled")).toHaveLength(1);
    expect(types).not.toContain("step_completed");
    expect(types).not.toContain("exec_completed");
  });
});
