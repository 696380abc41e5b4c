import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inOwnerLane, laneOf, newId } from "@wf/shared/execution";
import type { ResumeCommand } from "@wf/shared/messages";
import { consumerNames, ensureConsumer, streamNames, subjects, type TimerMessage } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { startScheduler } from "@wf/scheduler";
import type { NatsServerHandle } from "@wf/testing";
import { runBounded } from "../bench/bounded";
import { startNatsServer, startRuntime, testConfig, waitFor } from "../support/runtime";
import { FLOOD, quietOwner } from "../support/lane-owners";

/**
 * Owner A's timers due together (waits armed for the same minute): each firing is cheap (a publish and an ack), so the
 * backlog must be many times the scheduler's bound of 1,000 timers in hand to be one at all. WF_TEST_TIMER_BACKLOG
 * measures with more.
 */
const BACKLOG = Number(process.env.WF_TEST_TIMER_BACKLOG ?? 10_000);
/** The scheduler's bound (services/scheduler): what one round in hand, all lanes together, holds at most. */
const IN_HAND = 1_000;
const TIMEOUT_MS = 60_000 + BACKLOG * 5;
const QUIET = quietOwner();

describe("timer lanes", () => {
  let server: NatsServerHandle;

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  // Judged by order, not by the clock: the resumes the timers fire land on the command stream in the order they were
  // fired. Taken in the order they came, B's timer would fire after nearly all of A's; in turn, beside the few in hand.
  it(
    "fires another owner's timer beside one owner's backlog of due timers, not after it",
    async () => {
      // No executor: the resumes stay on the command stream, in the order they were published.
      const rt = await startRuntime(testConfig(server), { executor: false, scheduler: false, approvals: false });
      const p = rt.platform;
      try {
        const flood = Array.from({ length: BACKLOG }, () => inOwnerLane(newId(), FLOOD));
        const quiet = inOwnerLane(newId(), QUIET);
        expect(laneOf(quiet)).not.toBe(laneOf(flood[0]!));
        // A's timers, then B's, all due: the backlog is queued when B's falls due, as when A's fall due faster than
        // the timers are fired.
        const due = Date.now();
        await runBounded(flood.length, 256, (i) => wake(p, flood[i]!, due));
        await wake(p, quiet, due);
        const scheduler = await startScheduler(p);
        try {
          const started = Date.now();
          const cmd = streamNames(rt.ns).cmd;
          await waitFor(
            async () => ((await p.jsm.streams.info(cmd)).state.last_seq === BACKLOG + 1 ? true : undefined),
            { timeoutMs: TIMEOUT_MS - 30_000, what: "every timer to fire" },
          );
          const b = await p.jsm.streams.getMessage(cmd, { last_by_subj: subjects(rt.ns).execResume(quiet) });
          expect(b?.json<ResumeCommand>()).toMatchObject({ executionId: quiet, reason: "timer" });
          const all = await p.jsm.streams.getMessage(cmd, { seq: BACKLOG + 1 });
          // The command stream holds only the fired resumes: those before B's are A's.
          const before = b!.seq - 1;
          const ms = (t: Date) => t.getTime() - started;
          console.log(
            `${before} of owner A's ${BACKLOG} due timers fired before owner B's ` +
              `(B's after ${ms(b!.time)} ms, A's all after ${ms(all!.time)} ms)`,
          );
          expect(before, "A's timers fired first").toBeLessThan(Math.min(IN_HAND, BACKLOG / 2));
        } finally {
          await scheduler.stop();
        }
      } finally {
        await rt.stop();
      }
    },
    TIMEOUT_MS,
  );

  // A store made by the version before the timer lanes: its consumer of every timer (`<ns>.timer.>`), and a timer it
  // armed on the subject it used. The upgrade narrows that consumer to the earlier subjects, to make room for the
  // lanes' on the work queue, and it still fires what it holds.
  it("fires a timer armed on the earlier subject before an upgrade, beside one armed in a lane", async () => {
    const rt = await startRuntime(testConfig(server), { executor: false, scheduler: false, approvals: false });
    const p = rt.platform;
    const stream = streamNames(rt.ns).timer;
    try {
      await ensureConsumer(p.jsm, stream, {
        durable: consumerNames().timers,
        filter: `${rt.ns}.timer.>`,
        ackWaitMs: 5_000,
        maxDeliver: -1,
        maxAckPending: 1_000_000,
      });
      const [old, laned] = [inOwnerLane(newId(), FLOOD), inOwnerLane(newId(), QUIET)];
      const payload: ResumeCommand = { executionId: old, reason: "timer", stepPath: "park" };
      const timer: TimerMessage = {
        dueAt: Date.now() + 1_500,
        fire: { subject: subjects(rt.ns).execResume(old), payload, msgId: `wake:${old}` },
      };
      await p.js.publish(`${rt.ns}.timer.exec.${old}-park`, JSON.stringify(timer));
      const scheduler = await startScheduler(p);
      try {
        expect((await p.jsm.consumers.info(stream, consumerNames().timers)).config.filter_subject).toBe(
          subjects(rt.ns).timerBeforeAll,
        );
        await wake(p, laned, Date.now());
        for (const id of [old, laned])
          await waitFor(
            async () =>
              (await p.jsm.streams.getMessage(streamNames(rt.ns).cmd, {
                last_by_subj: subjects(rt.ns).execResume(id),
              })) ?? undefined,
            { what: `the resume of ${id === old ? "the earlier" : "the lane's"} timer` },
          );
        await waitFor(async () => ((await p.jsm.streams.info(stream)).state.messages === 0 ? true : undefined), {
          what: "both timers to be acknowledged",
        });
      } finally {
        await scheduler.stop();
      }
    } finally {
      await rt.stop();
    }
  });
});

/** The timer of a wait of execution `id`'s that ends at `dueAt`, as its executor arms it. */
async function wake(p: Platform, id: string, dueAt: number): Promise<void> {
  const timerId = `${id}-park-${newId()}`;
  const payload: ResumeCommand = { executionId: id, reason: "timer", stepPath: "park" };
  await p.timers.schedule({
    kind: "exec",
    id: timerId,
    lane: laneOf(id),
    dueAt,
    fire: { subject: subjects(p.config.WF_NAMESPACE).execResume(id), payload, msgId: `wake:${timerId}` },
  });
}
