import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutionEvent } from "@wf/shared/execution";
import { ResumeCommand } from "@wf/shared/messages";
import { cancelExecution } from "@wf/shared/client";
import { streamNames, subjects } from "@wf/shared/nats";
import { useNatsServer } from "@wf/testing/nats-connection";
import { run, startRuntime, testConfig, waitFor, waitForStatus, type InProcessRuntime } from "../support/runtime";
import { spinStep } from "../support/spin-step";

/**
 * On the normal path (no crash, no takeover) every event is published once: a resume by timer, and the wakes of short
 * waits that fire while the run still holds the execution and come again later, send nothing again
 * (docs/architecture.md, "Snapshots first, then events").
 */
const nats = useNatsServer();
let rt: InProcessRuntime;

/** Executions run at once (WF_TEST_TIMER_WAKES, to measure with more). */
const EXECUTIONS = Number(process.env.WF_TEST_TIMER_WAKES ?? 10);
const TIMEOUT_MS = 60_000 + EXECUTIONS * 1_000;

beforeAll(async () => {
  // Waits over a second park and wake by their timer; shorter ones stay in memory, their timer armed all the same.
  rt = await startRuntime(testConfig(nats.server, { WF_HOLD_WAIT_MS: "1000" }), { approvals: false });
});
afterAll(async () => {
  await rt?.stop();
});

/**
 * Each `nap` parks, and its timer's resume takes the execution up. The short waits after it pass in memory: the timer
 * of the first fires during the second, that of the second as the run ends; both are put back while the run holds the
 * execution, and delivered again once it is parked again, or ended.
 */
const WAKES = `
name: wakes
steps:
  - { name: nap1, type: wait, seconds: 1.2 }
  - { name: a, type: wait, seconds: 0.3 }
  - { name: b, type: wait, seconds: 0.3 }
  - { name: nap2, type: wait, seconds: 1.2 }
  - { name: c, type: wait, seconds: 0.3 }
  - { name: d, type: wait, seconds: 0.3 }
`;
const WAITS = 6;

/** A wait that parks for an hour. */
const PARKS_AN_HOUR = "name: parks\nsteps:\n  - { name: nap, type: wait, seconds: 3600 }\n";

/** A short wait passed in memory, a pure step that holds the run for 2.5 s, a wait that parks for an hour. */
const CANCELLED_PARKED = `
name: cancelled-parked
steps:
  - { name: short, type: wait, seconds: 0.3 }${spinStep("busy", 2500)}
  - { name: nap, type: wait, seconds: 3600 }
`;

/** Counts every publish on the event subjects, before the stream's deduplication: each event's id, as often as sent. */
async function eventsSent(): Promise<{ sent: Map<string, number>; stop: () => void }> {
  const sent = new Map<string, number>();
  const sub = rt.platform.nc.subscribe(`${rt.ns}.evt.>`, {
    callback: (_err, m) => {
      const id = m.json<ExecutionEvent>().id;
      sent.set(id, (sent.get(id) ?? 0) + 1);
    },
  });
  await rt.platform.nc.flush();
  return { sent, stop: () => sub.unsubscribe() };
}

/** The events sent more than once: each time after its first. */
function sentAgain(sent: Map<string, number>): number {
  return [...sent.values()].reduce((n, times) => n + times - 1, 0);
}

/** The ids of the execution's events in the stream, in its order, each as often as it is stored. */
async function storedIds(id: string): Promise<string[]> {
  const ids: string[] = [];
  const filter = subjects(rt.ns).eventFilter({ executionId: id });
  for (let seq = 1; ;) {
    const m = await rt.platform.jsm.streams.getMessage(streamNames(rt.ns).evt, { seq, next_by_subj: filter } as never);
    if (!m) return ids;
    ids.push(m.json<ExecutionEvent>().id);
    seq = m.seq + 1;
  }
}

/** Commands not yet handled for good: not delivered yet, or delivered and not acknowledged (put back with a delay). */
async function commandsOpen(): Promise<number> {
  let open = 0;
  for await (const c of rt.platform.jsm.consumers.list(streamNames(rt.ns).cmd))
    open += c.num_pending + c.num_ack_pending;
  return open;
}

describe("events of executions woken by timers, without a crash or a takeover", () => {
  it(
    "are each published once: no resume or late wake sends the park's or the ending's events again",
    async () => {
      const { nc } = rt.platform;
      const { sent, stop } = await eventsSent();
      // The waits whose timer fired, by execution and step (a timer fired again is one wake).
      const wakes = new Set<string>();
      const resumes = nc.subscribe(subjects(rt.ns).execResumeAll, {
        callback: (_err, m) => {
          const cmd = ResumeCommand.parse(m.json());
          if (cmd.reason === "timer") wakes.add(`${cmd.executionId}/${cmd.stepPath}`);
        },
      });
      await nc.flush();
      try {
        const ids = await Promise.all(Array.from({ length: EXECUTIONS }, () => run(rt.platform, WAKES)));
        const ended = await Promise.all(ids.map((id) => waitForStatus(rt.platform, id, undefined, TIMEOUT_MS)));
        expect(ended.map((s) => s.status)).toEqual(ids.map(() => "COMPLETED"));
        // Every timer fired, and every wake was handled for good: nothing is left to send anything again.
        await waitFor(() => wakes.size === EXECUTIONS * WAITS, {
          what: "every wait's timer to fire",
          timeoutMs: TIMEOUT_MS,
        });
        await waitFor(async () => (await commandsOpen()) === 0, {
          what: "every command handled",
          timeoutMs: TIMEOUT_MS,
        });
        // Each event stored once, none missing.
        for (const s of ended)
          expect(await storedIds(s.id)).toEqual(Array.from({ length: s.eventSeq }, (_, i) => `${s.id}.${i + 1}`));
        await nc.flush();
        const again = sentAgain(sent);
        expect(
          again,
          `${again} events sent again over ${EXECUTIONS * WAITS} timer wakes (${EXECUTIONS * 2} parks resumed)`,
        ).toBe(0);
        expect(sent.size).toBe(ended.reduce((n, s) => n + s.eventSeq, 0));
      } finally {
        stop();
        resumes.unsubscribe();
      }
    },
    TIMEOUT_MS,
  );

  it(
    "are each published once when an execution parked here is cancelled: the cancel does not send the park's again",
    async () => {
      const { sent, stop } = await eventsSent();
      try {
        const ids = await Promise.all(Array.from({ length: EXECUTIONS }, () => run(rt.platform, PARKS_AN_HOUR)));
        for (const id of ids) {
          await waitFor(async () => (await rt.platform.store.executions.get(id))?.value.steps.nap?.waitUntil, {
            what: "the execution to park at nap",
            timeoutMs: TIMEOUT_MS,
          });
          await cancelExecution(rt.platform.js, rt.ns, id);
        }
        const ended = await Promise.all(ids.map((id) => waitForStatus(rt.platform, id, undefined, TIMEOUT_MS)));
        expect(ended.map((s) => s.status)).toEqual(ids.map(() => "CANCELLED"));
        await waitFor(async () => (await commandsOpen()) === 0, {
          what: "every command handled",
          timeoutMs: TIMEOUT_MS,
        });
        await rt.platform.nc.flush();
        const again = sentAgain(sent);
        expect(again, `${again} events sent again over ${EXECUTIONS} cancels of parked executions`).toBe(0);
        expect(sent.size).toBe(ended.reduce((n, s) => n + s.eventSeq, 0));
      } finally {
        stop();
      }
    },
    TIMEOUT_MS,
  );

  it(
    "are each published once when a parked execution is cancelled: a late wake does not finish the cancel again",
    async () => {
      const { sent, stop } = await eventsSent();
      const wakes = new Set<string>();
      const resumes = rt.platform.nc.subscribe(subjects(rt.ns).execResumeAll, {
        callback: (_err, m) => {
          const cmd = ResumeCommand.parse(m.json());
          if (cmd.stepPath === "short") wakes.add(cmd.executionId);
        },
      });
      await rt.platform.nc.flush();
      try {
        // The timer of `short` fires while the run holds the execution (spinning in `busy`): it is put back, up to a
        // second at a time, and comes again once the execution is parked at `nap`, and cancelled there at once.
        const ids = await Promise.all(
          Array.from({ length: EXECUTIONS }, async () => {
            const id = await run(rt.platform, CANCELLED_PARKED);
            await waitFor(
              async () => {
                const v = (await rt.platform.store.executions.get(id))?.value;
                return v?.holder === null && Boolean(v.steps.nap?.waitUntil);
              },
              { what: "the execution to park at nap", timeoutMs: TIMEOUT_MS, intervalMs: 5 },
            );
            await cancelExecution(rt.platform.js, rt.ns, id);
            return id;
          }),
        );
        const ended = await Promise.all(ids.map((id) => waitForStatus(rt.platform, id, undefined, TIMEOUT_MS)));
        expect(ended.map((s) => s.status)).toEqual(ids.map(() => "CANCELLED"));
        await waitFor(() => wakes.size === EXECUTIONS, {
          what: "every short wait's timer to fire",
          timeoutMs: TIMEOUT_MS,
        });
        await waitFor(async () => (await commandsOpen()) === 0, {
          what: "every command handled",
          timeoutMs: TIMEOUT_MS,
        });
        await rt.platform.nc.flush();
        const again = sentAgain(sent);
        expect(again, `${again} events sent again over ${EXECUTIONS} late wakes of cancelled executions`).toBe(0);
        expect(sent.size).toBe(ended.reduce((n, s) => n + s.eventSeq, 0));
      } finally {
        stop();
        resumes.unsubscribe();
      }
    },
    TIMEOUT_MS,
  );
});
