import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { laneOf, type ExecutionEvent, type ExecutionSnapshot } from "@wf/shared/execution";
import { cancelExecution } from "@wf/shared/client";
import type { ResumeCommand } from "@wf/shared/messages";
import { consumerNames, streamNames, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import type { NatsServerHandle } from "@wf/testing";
import {
  run,
  startNatsServer,
  startRuntime,
  testConfig,
  waitFor,
  waitForStatus,
  type InProcessRuntime,
} from "../support/runtime";
import { FLOOD, quietOwner } from "../support/lane-owners";

/**
 * Owner A's waits that all end at `at`, each then holding an executor's slot for 0.4 s without CPU (a wait under the
 * hold threshold stays in hand): their resumes make a backlog of N × 0.4 s / 4 slots.
 */
const parkedUntil = (at: number) => `
name: parked
steps:
  - name: park
    type: wait
    until: ${new Date(at).toISOString()}
  - name: hold
    type: wait
    seconds: 0.4
  - name: done
    type: transform
    output: "{{ 1 }}"
`;

/** Owner A's resumes: N of them (WF_TEST_RESUME_BACKLOG, to measure with more). */
const BACKLOG = Number(process.env.WF_TEST_RESUME_BACKLOG ?? 60);
/** A backlog drains at 10 resumes a second; the default leaves most of this unused. */
const TIMEOUT_MS = 60_000 + BACKLOG * 500;
const QUIET = quietOwner();

/** Commands are handled twice under WF_REDELIVER_ONCE: no step may run twice for it. */
for (const env of [{}, { WF_REDELIVER_ONCE: "1" }] as Record<string, string>[]) {
  const twice = "WF_REDELIVER_ONCE" in env;
  describe(`resume lanes${twice ? " (every command handled twice)" : ""}`, () => {
    let server: NatsServerHandle;

    beforeAll(async () => {
      server = await startNatsServer();
    });
    afterAll(async () => {
      await server?.stop();
    });

    /** A runtime of four slots, where waits of a second or more park: each test its own namespace. */
    async function runtime(): Promise<InProcessRuntime> {
      return startRuntime(
        testConfig(server, {
          WF_EXEC_CONCURRENCY: "4",
          WF_EXEC_YIELD_CONCURRENCY: "0",
          WF_HOLD_WAIT_MS: "1000",
          ...env,
        }),
      );
    }

    // Judged by order, not by the clock: taken in the order they came, B's resume would run after nearly all of A's;
    // in turn, beside them.
    it(
      "runs another owner's resume beside one owner's backlog of resumes, not after it",
      async () => {
        const rt = await runtime();
        try {
          const { flood, at } = await floodOfResumes(rt.platform);
          const quiet = await run(rt.platform, parkedUntil(at + 300), { ownerId: QUIET });
          expect(laneOf(quiet)).not.toBe(laneOf(flood[0]!));
          await waitFor(async () => parked(await snapshot(rt.platform, quiet)), {
            what: "owner B's execution to park",
          });
          const b = await waitForStatus(rt.platform, quiet, ["COMPLETED"], TIMEOUT_MS);
          const before = await endedBefore(rt.platform, flood, b.completedAt!);
          console.log(`${before} of owner A's ${BACKLOG} resumes ran before owner B's one completed`);
          expect(before, "A's resumes that went first").toBeLessThan(Math.min(20, BACKLOG / 2));
          await expectEachStepOnce(rt, [quiet, ...flood], twice);
        } finally {
          await rt.stop();
        }
      },
      TIMEOUT_MS,
    );

    it(
      "obeys a cancel while a backlog of resumes waits, the flooding owner's own",
      async () => {
        const rt = await runtime();
        try {
          const { flood, at } = await floodOfResumes(rt.platform);
          const victim = await run(rt.platform, parkedUntil(at + 3_600_000), { ownerId: FLOOD });
          await waitFor(async () => parked(await snapshot(rt.platform, victim)), { what: "the victim to park" });
          await waitFor(() => (Date.now() > at + 300 ? true : undefined), { what: "the backlog to queue" });
          await cancelExecution(rt.platform.js, rt.ns, victim, "tired of waiting");
          const cancelled = await waitForStatus(rt.platform, victim, ["CANCELLED"], TIMEOUT_MS);
          const before = await endedBefore(rt.platform, flood, cancelled.completedAt!);
          console.log(`${before} of owner A's ${BACKLOG} resumes ran before the cancel was obeyed`);
          expect(before, "A's resumes that went first").toBeLessThan(Math.min(20, BACKLOG / 2));
        } finally {
          await rt.stop();
        }
      },
      TIMEOUT_MS,
    );

    // A store made by the version before the resume lanes: no resume lane's consumer yet, and a resume stored on the
    // subject it sent them on.
    it("obeys a resume stored on the earlier subject before an upgrade", async () => {
      const config = testConfig(server, { WF_HOLD_WAIT_MS: "1000", ...env });
      const old = await startRuntime(config);
      const at = Date.now() + 2_000;
      const id = await run(old.platform, parkedUntil(at));
      await waitFor(async () => parked(await snapshot(old.platform, id)), { what: "the execution to park" });
      await old.stop();
      const admin = await startRuntime(config, { executor: false, scheduler: false, approvals: false });
      try {
        const { jsm, js } = admin.platform;
        // The previous version's timer, as if it fired on the earlier subject: not this version's.
        await jsm.streams.purge(streamNames(config.WF_NAMESPACE).timer);
        for (let lane = 0; lane < 16; lane++)
          await jsm.consumers.delete(streamNames(config.WF_NAMESPACE).cmd, consumerNames().executorResumeLane(lane));
        await waitFor(() => (Date.now() > at ? true : undefined), { what: "the wait to end" });
        const resume: ResumeCommand = { executionId: id, reason: "timer", stepPath: "park" };
        const earlier = subjects(config.WF_NAMESPACE).execResumeBefore(id);
        expect(earlier).toBe(`${config.WF_NAMESPACE}.cmd.exec.resume.${id}`);
        await js.publish(earlier, JSON.stringify(resume));
        // The upgraded executor, without a scheduler: nothing else would wake the execution.
        const upgraded = await startRuntime(config, { scheduler: false, approvals: false });
        try {
          expect((await waitForStatus(upgraded.platform, id)).status).toBe("COMPLETED");
          // Acknowledged (under WF_REDELIVER_ONCE, on its second delivery, which may come after the execution's end).
          await waitFor(
            async () =>
              (await jsm.streams.getMessage(streamNames(config.WF_NAMESPACE).cmd, { last_by_subj: earlier })) === null
                ? true
                : undefined,
            { what: "the earlier subject's resume to be acknowledged" },
          );
        } finally {
          await upgraded.stop();
        }
      } finally {
        await admin.stop();
      }
    });
  });
}

/**
 * Parks BACKLOG executions of owner A on waits that all end at once, later than they all parked: their timers then put
 * BACKLOG resumes in A's lane together.
 */
async function floodOfResumes(p: Platform): Promise<{ flood: string[]; at: number }> {
  const at = Date.now() + 4_000 + BACKLOG * 40;
  const flood = await Promise.all(Array.from({ length: BACKLOG }, () => run(p, parkedUntil(at), { ownerId: FLOOD })));
  const moving = new Set(flood);
  await waitFor(
    async () => {
      for (const id of moving) if (parked(await snapshot(p, id))) moving.delete(id);
      return moving.size === 0 ? true : undefined;
    },
    { timeoutMs: at - Date.now(), what: "owner A's executions to park before their waits end" },
  );
  return { flood, at };
}

function snapshot(p: Platform, id: string): Promise<ExecutionSnapshot | undefined> {
  return p.store.executions.get(id).then((v) => v?.value);
}

/** Parked on its first wait: held by nobody, the wait not over. */
function parked(s: ExecutionSnapshot | undefined): true | undefined {
  return s?.holder === null && s.steps.park?.status === "RUNNING" ? true : undefined;
}

/** How many of `ids` completed before `t` (those still to end will end after it). */
async function endedBefore(p: Platform, ids: string[], t: number): Promise<number> {
  const states = await Promise.all(ids.map((id) => snapshot(p, id)));
  return states.filter((s) => s?.completedAt != null && s.completedAt < t).length;
}

/** Each ended execution of `ids` started each of its steps once, however often its commands were delivered. */
async function expectEachStepOnce(rt: InProcessRuntime, ids: string[], twice: boolean): Promise<void> {
  const { jsm } = rt.platform;
  let checked = 0;
  for (const id of ids) {
    const s = await snapshot(rt.platform, id);
    if (s?.status !== "COMPLETED") continue;
    const started = (await events(jsm, rt.ns, id)).filter((e) => e.type === "step_started").map((e) => e.step);
    expect(started, `the steps started by ${id}`).toEqual(["park", "hold", "done"]);
    checked++;
  }
  expect(checked, `executions checked${twice ? " under WF_REDELIVER_ONCE" : ""}`).toBeGreaterThan(0);
}

async function events(jsm: Platform["jsm"], ns: string, id: string): Promise<ExecutionEvent[]> {
  const stream = streamNames(ns).evt;
  const filter = subjects(ns).eventFilter({ executionId: id });
  const out: ExecutionEvent[] = [];
  for (let seq = 1; ;) {
    const m = await jsm.streams.getMessage(stream, { seq, next_by_subj: filter } as never);
    if (!m) return out;
    out.push(m.json<ExecutionEvent>());
    seq = m.seq + 1;
  }
}
