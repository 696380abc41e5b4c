import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { TERMINAL_STATUSES, type ExecutionSnapshot, type Holder } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import type { ResumeCommand } from "@wf/shared/messages";
import { commandSeq, holderAlive, retryTransient, streamNames, subjects } from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import { STALE_AFTER_MS } from "./stale-executions";
import { startSweeper, type Sweeper } from "./sweeper";

/** RUNNING executions looked at per pass; each costs a stream read, and a question to its holder when that finds nothing. */
const RUNNING_BATCH = 1_000;

/**
 * Brings back, every WF_RETENTION_SWEEP_MS, the RUNNING executions nothing would ever bring back
 * (docs/architecture.md#restarts): a command or a timer lost (purged by hand, or with a server's disk) leaves them
 * open for good. Two minutes after it should have come, each gets the command it lacks:
 *
 * - one held by a process whose command is no longer stored and which does not say it still runs it: a takeover
 *   command naming that holder;
 * - one parked (held by nobody) whose step's wait, retry backoff or deadline is that long overdue: the resume its
 *   timer would have sent;
 * - one parked on a sub-workflow that ended that long ago: the resume the child's end would have sent.
 *
 * Replicas may sweep at once: each command's message id is the same from each.
 */
export function startStrandedSweep(p: Platform, log: Logger, batch = RUNNING_BATCH): Sweeper {
  const ns = p.config.WF_NAMESPACE;
  let after: string | undefined;
  const pass = async (now: number): Promise<number> => {
    const { items, next } = await p.store.executions.listRunningBefore(now - STALE_AFTER_MS, batch, after);
    after = next ?? undefined;
    // A dead process holding many executions is asked once a pass: each unanswered question waits seconds.
    const silent = new Set<string>();
    let takenOver = 0;
    let woken = 0;
    for (const e of items) {
      const holder = e.holder;
      if (holder === null) {
        const wake = overdue(e, now - STALE_AFTER_MS) ?? (await childEnded(p, e, now - STALE_AFTER_MS));
        if (wake === null) continue;
        await publishWake(p.js, ns, e.id, wake);
        woken++;
        continue;
      }
      if (holder.since > now - STALE_AFTER_MS || (await commandStored(p.jsm, ns, e.id, holder.seq))) continue;
      if (!silent.has(holder.actor)) {
        if (await holderAlive(p.nc, ns, holder.actor, e.id)) continue;
        silent.add(holder.actor);
      }
      await publishTakeover(p.js, ns, e.id, holder);
      takenOver++;
    }
    if (takenOver + woken > 0) log.warn("stranded executions brought back", { takenOver, woken });
    return takenOver + woken;
  };
  return startSweeper(pass, p.config.WF_RETENTION_SWEEP_MS, log, "stranded execution sweep");
}

/**
 * Whether the command stored at `seq` is still there, or a rescued copy of it (orphans.ts) on the execution's start
 * or resume subject: the work queue keeps a command until it is acknowledged.
 */
async function commandStored(jsm: JetStreamManager, ns: string, id: string, seq: number): Promise<boolean> {
  const stream = streamNames(ns).cmd;
  if ((await jsm.streams.getMessage(stream, { seq })) !== null) return true;
  const s = subjects(ns);
  for (const subject of [s.execStart(id), s.execResume(id)]) {
    const last = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    if (last !== null && commandSeq({ seq: last.seq, headers: last.header }) === seq) return true;
  }
  return false;
}

/**
 * The earliest time a running step of parked `e` waits for (a wait's end, a retry's next attempt, a timeout's
 * deadline), when it is before `before`, as the resume its timer sends; otherwise null.
 */
function overdue(e: ExecutionSnapshot, before: number): Wake | null {
  let found: { at: number; stepPath: string } | null = null;
  for (const [stepPath, st] of Object.entries(e.steps)) {
    if (st.status !== "RUNNING") continue;
    for (const at of [st.waitUntil, st.retryAt, st.deadline]) {
      if (at !== null && at < before && (found === null || at < found.at)) found = { at, stepPath };
    }
  }
  return found && { reason: "timer", stepPath: found.stepPath, msgId: `overdue:${e.id}:${found.at}` };
}

/** The first running step of parked `e` whose sub-workflow ended before `before`, as the resume its end sends. */
async function childEnded(p: Pick<Platform, "store">, e: ExecutionSnapshot, before: number): Promise<Wake | null> {
  for (const [stepPath, st] of Object.entries(e.steps)) {
    if (st.status !== "RUNNING" || st.childExecutionId === null) continue;
    const child = (await p.store.executions.get(st.childExecutionId))?.value;
    if (child?.completedAt != null && TERMINAL_STATUSES.has(child.status) && child.completedAt < before)
      return { reason: "child", stepPath, msgId: `child:${child.id}` };
  }
  return null;
}

/** A resume a parked execution waits for, with the message id its own sender gives it. */
interface Wake {
  reason: "timer" | "child";
  stepPath: string;
  msgId: string;
}

async function publishWake(js: JetStreamClient, ns: string, id: string, wake: Wake): Promise<void> {
  const cmd: ResumeCommand = { executionId: id, reason: wake.reason, stepPath: wake.stepPath };
  await retryTransient(() => js.publish(subjects(ns).execResume(id), JSON.stringify(cmd), { msgID: wake.msgId }));
}

async function publishTakeover(js: JetStreamClient, ns: string, id: string, holder: Holder): Promise<void> {
  const cmd: ResumeCommand = { executionId: id, reason: "takeover", from: { actor: holder.actor, seq: holder.seq } };
  await retryTransient(() =>
    js.publish(subjects(ns).execResume(id), JSON.stringify(cmd), { msgID: `takeover:${id}:${holder.seq}` }),
  );
}
