import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsServerHandle } from "@wf/testing";
import { laneOf, newId, type ExecutionSnapshot } from "@wf/shared/execution";
import type { ResumeCommand } from "@wf/shared/messages";
import { subjects } from "@wf/shared/nats";
import { startParkingExecutor, type ServiceProcess } from "../support/processes";
import {
  commandsInHand,
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import { sideEffects, slowRecordedStep, type SideEffects } from "../support/side-effects";
import { spinStep } from "../support/spin-step";

/**
 * An executor killed by SIGKILL where a wait writes less than it did: a wait (or a retry's backoff) that parks has no
 * write of its own before the park's, and a timer's wake that finds its step past writes nothing (docs/architecture.md,
 * "Parked executions").
 * Nothing is lost, no effect runs twice.
 */
let server: NatsServerHandle;

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Starts executions, reads records and fires timers (its scheduler); runs no executor. */
async function client(ns: string): Promise<InProcessRuntime> {
  return startRuntime(testConfig(server, { WF_NAMESPACE: ns }), { executor: false, approvals: false });
}

const startExecutorProcess = (ns: string) => startParkingExecutor(server.url, ns);

/** A Python step that tells the sink under `key` that it ran, on a line of its own. */
const recorded = (fx: SideEffects, name: string, key: string) => `\n${slowRecordedStep(fx, name, key, "1", 0)}`;

/**
 * Runs `yaml` from the API on an executor killed once `atKill` finds the record as it wants, then (after `afterKill`)
 * lets a second executor finish it: returns the record at the kill and the ended one.
 */
async function killedOnce(
  name: string,
  yaml: string,
  atKill: (snap: ExecutionSnapshot, c: InProcessRuntime) => boolean | Promise<boolean>,
  afterKill?: (c: InProcessRuntime, id: string) => Promise<void>,
): Promise<{ killed: ExecutionSnapshot; ended: ExecutionSnapshot }> {
  const ns = `${name}${Date.now() % 100000}`;
  const c = await client(ns);
  let first: ServiceProcess | null = await startExecutorProcess(ns);
  try {
    const id = await run(c.platform, yaml, { triggerSource: "open_api" });
    const killed = await waitFor(
      async () => {
        const snap = (await c.platform.store.executions.get(id))?.value;
        return snap && (await atKill(snap, c)) ? snap : undefined;
      },
      { what: "the point to kill at" },
    );
    await first.kill();
    first = null;
    await afterKill?.(c, id);
    const second = await startExecutorProcess(ns);
    try {
      return { killed, ended: await waitForStatus(c.platform, id, undefined, 30_000) };
    } finally {
      await second.kill();
    }
  } finally {
    await first?.kill();
    await c.stop();
  }
}

/** Arms the timer of `path` in execution `id` as its run does (RunEffects.scheduleWake): its resume is due at `dueAt`. */
async function armWake(c: InProcessRuntime, id: string, path: string, dueAt: number): Promise<void> {
  const payload: ResumeCommand = { executionId: id, reason: "timer", stepPath: path };
  const timerId = `${id}-${path}-${newId()}`;
  await c.platform.timers.schedule({
    kind: "exec",
    id: timerId,
    lane: laneOf(id),
    dueAt,
    fire: { subject: subjects(c.ns).execResume(id), payload, msgId: `wake:${timerId}` },
  });
}

describe("executor killed between a parking wait's timer and the park's write", () => {
  it("begins the wait again on the next executor: the effects before and after it run once", async () => {
    const fx = await sideEffects();
    let armed = 0;
    const { killed, ended } = await killedOnce(
      "crashwaitpark",
      `
name: effect-spin-nap
steps:${recorded(fx, "effect", "effects")}${spinStep("busy", 4000)}
  - { name: nap, type: wait, seconds: 3 }${recorded(fx, "after", "afters")}
`,
      (snap) => snap.steps.effect?.status === "COMPLETED",
      // Killed while `busy` spins, nothing written since the effect's result, and `nap`'s timer armed as its run arms
      // it before the park's write: what a kill between the two leaves, `busy`'s result being as lost as it is.
      async (c, id) => {
        armed = Date.now() + 2_000;
        await armWake(c, id, "nap", armed);
      },
    );
    expect(killed.steps.nap).toBeUndefined();
    expect(ended.status).toBe("COMPLETED");
    expect(fx.lines("effects")).toHaveLength(1);
    expect(fx.lines("afters")).toHaveLength(1);
    // Begun again after the kill under a timer of its own, and waited out in full; the one armed before is let go.
    const nap = ended.steps.nap!;
    expect(nap.waitUntil!).not.toBe(armed);
    expect(nap.completedAt!).toBeGreaterThanOrEqual(nap.waitUntil!);
    expect(nap.completedAt! - nap.startedAt!).toBeGreaterThanOrEqual(3_000);
  });
});

describe("executor killed in a run that a timer's wake took up", () => {
  it("is taken over by that wake delivered again, though its wait is recorded past: the effect runs once", async () => {
    const fx = await sideEffects();
    const { killed, ended } = await killedOnce(
      "crashwakeheld",
      `
name: wake-then-spin
steps:
  - { name: nap, type: wait, seconds: 1 }${recorded(fx, "effect", "effects")}${spinStep("busy", 4000)}${recorded(fx, "after", "afters")}
`,
      (snap) => snap.steps.effect?.status === "COMPLETED",
    );
    // The record names the wake's command as holder, its wait COMPLETED: only that command's next delivery takes over.
    expect(killed.steps.nap?.status).toBe("COMPLETED");
    expect(killed.holder).not.toBeNull();
    expect(ended.status).toBe("COMPLETED");
    expect(fx.lines("effects")).toHaveLength(1);
    expect(fx.lines("afters")).toHaveLength(1);
  });
});

describe("executor killed between a failed attempt and its backoff's park", () => {
  it("runs the attempt again from the record's earlier backoff, under its wake: each attempt counted once", async () => {
    const fx = await sideEffects();
    // Attempt 1 fails at once, attempt 2 after 4 s, attempt 3 passes: told apart by the error the record keeps.
    const { killed, ended } = await killedOnce(
      "crashbackoffpark",
      `
name: effect-flaky
steps:${recorded(fx, "effect", "effects")}
  - name: flaky
    type: code
    language: javascript
    input: { failed: "{{ steps.flaky.error }}" }
    retry: { max_attempts: 3, backoff: fixed, initial_delay: 1.5 }
    code: |
      if (!input.failed) throw new Error("attempt 1");
      if (input.failed.includes("attempt 2")) return 1;
      const end = Date.now() + 4000;
      while (Date.now() < end) {}
      throw new Error("attempt 2");${recorded(fx, "after", "afters")}
`,
      // Killed while attempt 2 runs, attempt 1's backoff's wake in hand, the record at that backoff (naming the wake's
      // command as holder, or nobody): what a kill after attempt 2 failed and before its park's write leaves, with
      // attempt 2's backoff timer armed (below).
      async (snap, c) =>
        snap.steps.flaky?.retryAt !== null &&
        snap.steps.flaky?.retryAt !== undefined &&
        Date.now() > snap.steps.flaky.retryAt + 500 &&
        (await commandsInHand(c.platform.jsm, c.ns)) > 0,
      (c, id) => armWake(c, id, "flaky", Date.now() + 1_000),
    );
    expect(killed.steps.flaky).toMatchObject({
      status: "RUNNING",
      attempts: 1,
      error: expect.stringContaining("attempt 1"),
    });
    // The wake delivered again runs attempt 2 again; the timer armed for its lost backoff finds the record at attempt
    // 1's backoff (due at another time) and is let go, with no write.
    expect(ended.status).toBe("COMPLETED");
    expect(ended.steps.flaky).toMatchObject({ status: "COMPLETED", attempts: 3 });
    expect(fx.lines("effects")).toHaveLength(1);
    expect(fx.lines("afters")).toHaveLength(1);
  });
});
