import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, ownerLane, type ExecutionEvent } from "@wf/shared/execution";
import { fireTimer, streamNames, subjects, toToken } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import type { UserRecord, WorkflowRecord } from "@wf/shared/store";
import { chainTimer, startScheduler } from "@wf/scheduler";
import { testUser, type NatsServerHandle } from "@wf/testing";
import { runBounded } from "../bench/bounded";
import { FLOOD, quietOwner } from "../support/lane-owners";
import { startNatsServer, startRuntime, testConfig, waitFor } from "../support/runtime";
import { storeWorkflow } from "./support";

/**
 * Owner A's chained runs due together (a workflow chained many times after itself, its runs ending together): each
 * start is a few store operations, so the backlog must be many times the scheduler's 256 commands in hand to be one at
 * all. WF_TEST_TRIGGER_BACKLOG measures with more.
 */
const BACKLOG = Number(process.env.WF_TEST_TRIGGER_BACKLOG ?? 2_000);
/** The scheduler's bound on its commands in hand (services/scheduler/src/triggers.ts), all lanes together. */
const IN_HAND = 256;
const TIMEOUT_MS = 60_000 + BACKLOG * 20;
const QUIET = quietOwner();
/** The chained triggers' delay: an hour, so that nothing but the test fires their runs. */
const DELAY_S = 3_600;

describe("trigger lanes", () => {
  let server: NatsServerHandle;

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  // Judged by order, not by the clock: the starts the scheduler publishes land on the command stream in the order it
  // carried the commands out. Taken in the order they came, B's run would start after nearly all of A's; in turn,
  // beside the few in hand.
  it(
    "starts another owner's chained run beside one owner's backlog of them, not after it",
    async () => {
      // No executor: the starts stay on the command stream, in the order they were published.
      const rt = await startRuntime(testConfig(server), { executor: false, scheduler: false, approvals: false });
      const p = rt.platform;
      try {
        expect(ownerLane(QUIET)).not.toBe(ownerLane(FLOOD));
        const a = await chained(p, await owner(p, FLOOD, "enterprise"));
        const b = await chained(p, await owner(p, QUIET, "pro"));
        // A's chained runs as their timers fire them, then B's: the backlog is queued when B's comes, as when A's
        // timers fire faster than the scheduler starts their runs.
        const due = Date.now();
        await runBounded(BACKLOG, 256, () => fire(p, a, due));
        const quietSource = await fire(p, b, due);
        const cmd = streamNames(rt.ns).cmd;
        const last = (await p.jsm.streams.info(cmd)).state.last_seq;
        const started = Date.now();
        const scheduler = await startScheduler(p);
        try {
          // Every command carried out (the backlog's past A's plan's minute start nothing): only the starts are left.
          const end = await waitFor(
            async () => {
              const { state } = await p.jsm.streams.info(cmd);
              return state.first_seq > last ? state.last_seq : undefined;
            },
            { timeoutMs: TIMEOUT_MS - 30_000, what: "every chained run's command to be carried out" },
          );
          const runs = await p.store.executions.list({ ownerId: QUIET, page: 1, size: 10 });
          expect(runs.items.map((e) => e.workflowId)).toEqual([b.workflow.id]);
          const quiet = await p.jsm.streams.getMessage(cmd, {
            last_by_subj: subjects(rt.ns).execStart(runs.items[0]!.id),
          });
          expect(quiet, `the start of B's run chained after ${quietSource}`).not.toBeNull();
          const all = await p.jsm.streams.getMessage(cmd, { seq: end });
          // Only the starts came after the last command: those before B's are A's.
          const before = quiet!.seq - last - 1;
          const ms = (t: Date) => t.getTime() - started;
          console.log(
            `${before} of owner A's ${end - last - 1} chained runs started (of ${BACKLOG}) before owner B's ` +
              `(B's after ${ms(quiet!.time)} ms, A's all after ${ms(all!.time)} ms)`,
          );
          expect(before, "A's runs started first").toBeLessThan(Math.min(IN_HAND * 2, BACKLOG / 2));
        } finally {
          await scheduler.stop();
        }
      } finally {
        await rt.stop();
      }
    },
    TIMEOUT_MS,
  );

  // Judged by order, not by the clock: the timers of the chained runs land on the timer stream in the order the
  // scheduler counted and armed them. Taken in the order the ends came, B's would be armed after nearly all of A's.
  it(
    "arms another owner's chained run beside one owner's backlog of ends, not after it",
    async () => {
      const rt = await startRuntime(testConfig(server), { executor: false, scheduler: false, approvals: false });
      const p = rt.platform;
      try {
        const a = await chained(p, await owner(p, FLOOD, "enterprise"));
        const b = await chained(p, await owner(p, QUIET, "pro"));
        // A's source ended many times over (runs of a quick workflow), then B's, as the executors publish the ends:
        // the backlog is queued when B's comes, as when A's runs end faster than the scheduler counts them.
        await runBounded(BACKLOG, 256, () => end(p, a));
        const quiet = await end(p, b);
        const timers = streamNames(rt.ns).timer;
        const started = Date.now();
        const scheduler = await startScheduler(p);
        try {
          const armed = await waitFor(() => timerOf(p, b, quiet), {
            timeoutMs: TIMEOUT_MS - 30_000,
            what: "the timer of B's chained run",
          });
          // The timer stream holds only the chained runs' timers (an hour off): those before B's are A's.
          const { first_seq } = (await p.jsm.streams.info(timers)).state;
          const before = armed.seq - first_seq;
          console.log(
            `${before} of owner A's ${BACKLOG} chained runs were armed before owner B's ` +
              `(B's after ${armed.time.getTime() - started} ms)`,
          );
          expect(before, "A's runs armed first").toBeLessThan(Math.min(IN_HAND * 2, BACKLOG / 2));
        } finally {
          await scheduler.stop();
        }
      } finally {
        await rt.stop();
      }
    },
    TIMEOUT_MS,
  );

  // A command a version before the trigger lanes stored (or a timer it armed fires) on the subject it used.
  it("starts a chained run whose command was stored on the earlier subject before an upgrade", async () => {
    const rt = await startRuntime(testConfig(server), { executor: false, approvals: false });
    const p = rt.platform;
    try {
      const c = await chained(p, await owner(p, newId(), "pro"));
      const cmd = { kind: "chain", workflowId: c.workflow.id, chainKey: c.chainKey, sourceExecutionId: newId() };
      const earlier = `${rt.ns}.cmd.sched.chain.${toToken(c.workflow.id)}`;
      await p.js.publish(earlier, JSON.stringify({ ...cmd, dueAt: Date.now() }));
      const [run] = await waitFor(
        async () => {
          const { items } = await p.store.executions.list({ ownerId: c.owner.id, page: 1, size: 10 });
          return items.length > 0 ? items : undefined;
        },
        { what: "the chained run" },
      );
      expect(run).toMatchObject({ workflowId: c.workflow.id, triggerSource: "chained" });
      const stream = streamNames(rt.ns).cmd;
      await waitFor(
        async () => ((await p.jsm.streams.getMessage(stream, { last_by_subj: earlier })) === null ? true : undefined),
        { what: "the earlier subject's command to be acknowledged" },
      );
    } finally {
      await rt.stop();
    }
  });
});

interface Chained {
  owner: UserRecord;
  workflow: WorkflowRecord;
  /** The workflow it is chained after, of the same owner's. */
  after: string;
  /** The key of its trigger. */
  chainKey: string;
}

async function owner(p: Platform, id: string, plan: UserRecord["plan"]): Promise<UserRecord> {
  const user = { ...testUser({ plan }), id };
  await p.store.users.create(user);
  return user;
}

/** A workflow of `o`'s chained an hour after another of theirs: its runs are armed, and started only when fired. */
async function chained(p: Platform, o: UserRecord): Promise<Chained> {
  const after = await storeWorkflow(p, o.id, quick("source"));
  const yaml = quick("chained", `triggers:\n  - { type: DELAYED_COMPLETION, after: ${after.id}, delay: ${DELAY_S} }`);
  const workflow = await storeWorkflow(p, o.id, yaml);
  return { owner: o, workflow, after: after.id, chainKey: `${workflow.id}:${after.id}:0` };
}

/** The end of a run of the workflow `c` is chained after, as its executor publishes it. */
async function end(p: Platform, c: Chained): Promise<ExecutionEvent> {
  const executionId = newId();
  const event: ExecutionEvent = {
    type: "exec_completed",
    executionId,
    workflowId: c.after,
    ownerId: c.owner.id,
    at: Date.now(),
    id: newId(),
    data: {},
  };
  const subject = subjects(p.config.WF_NAMESPACE).event(c.owner.id, c.after, executionId, event.type);
  await p.js.publish(subject, JSON.stringify(event), { msgID: event.id });
  return event;
}

/** The stored timer of the run of `c` chained after `source`, as the server holds it (a message schedule or not). */
async function timerOf(p: Platform, c: Chained, source: ExecutionEvent) {
  const cmd = { kind: "chain" as const, workflowId: c.workflow.id, chainKey: c.chainKey, dueAt: source.at };
  const t = chainTimer(p.config.WF_NAMESPACE, c.owner.id, { ...cmd, sourceExecutionId: source.executionId });
  const subj = subjects(p.config.WF_NAMESPACE);
  for (const subject of [subj.timer(t.lane, t.kind, toToken(t.id)), subj.timerSchedule(t.kind, toToken(t.id))]) {
    const stored = await p.jsm.streams.getMessage(streamNames(p.config.WF_NAMESPACE).timer, { last_by_subj: subject });
    if (stored) return stored;
  }
  return undefined;
}

/** The command the timer of a run of `c` chained after a source execution that ended at `dueAt` fires; its source. */
async function fire(p: Platform, c: Chained, dueAt: number): Promise<string> {
  const sourceExecutionId = newId();
  const cmd = { kind: "chain" as const, workflowId: c.workflow.id, chainKey: c.chainKey, sourceExecutionId, dueAt };
  await fireTimer(p.js, chainTimer(p.config.WF_NAMESPACE, c.owner.id, cmd));
  return sourceExecutionId;
}

const quick = (name: string, triggers = "") => `
name: ${name}
${triggers}
steps:
  - { name: only, type: transform, output: "${name} done" }
`;
