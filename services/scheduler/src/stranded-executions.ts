import type { JetStreamManager } from "@nats-io/jetstream";
import { idleDue, TERMINAL_STATUSES, type ExecutionSnapshot, type Holder } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import type { ApprovalExpireCommand, DebugIdleCommand, ResumeCommand } from "@wf/shared/messages";
import {
  commandSeq,
  holderAlive,
  queuedCommand,
  retryTransient,
  StoredDefinitions,
  streamNames,
  subjects,
} from "@wf/shared/nats";
import type { Platform } from "@wf/shared/runtime";
import type { OpenStatus } from "@wf/shared/store";
import { STALE_AFTER_MS } from "./stale-executions";
import { startSweeper, type Sweeper } from "./sweeper";
import { countStranded, type StrandedCommand } from "./timer-metrics";

/** Open executions of each status looked at per pass; each costs a read or two, and a question to a holder at most. */
const OPEN_BATCH = 1_000;

/** A command an execution lacks, as its own sender publishes it: the same message id dedups it against that one. */
interface Missing {
  command: StrandedCommand;
  subject: string;
  payload: ResumeCommand | ApprovalExpireCommand | DebugIdleCommand;
  msgId: string;
  /**
   * Left out while a command waits on its subject: a wake-up late only because the queue is long (a flood) is on its
   * way. A takeover is sent all the same: a resume waiting there waits on the dead holder.
   */
  unlessQueued: boolean;
}

/**
 * Brings back, every WF_RETENTION_SWEEP_MS, the open executions nothing would ever bring back
 * (docs/architecture.md#restarts): a command or a timer lost (purged by hand, or with a server's disk) leaves them
 * open for good. Two minutes after it should have come, each gets the command it lacks:
 *
 * - one held (RUNNING, or AWAITING_APPROVAL as a resumed debug run's first write leaves it) by a process whose
 *   command is no longer stored and which does not say it still runs it: a takeover command naming that holder;
 * - one parked whose step's wait, retry backoff or deadline is that long overdue: the resume its timer would have
 *   sent; one parked on a sub-workflow that ended that long ago: the resume the child's end would have sent; one
 *   paused by a debugger that long past its idle timeout: the idle command its timer would have sent;
 * - one awaiting an approval that expired that long ago: the expiry its timer would have sent; one whose approval was
 *   decided that long ago: the resume the decision would have sent.
 *
 * Replicas may sweep at once: each command's message id is the same from each.
 *
 * It also keeps the definitions their records name stored (StoredDefinitions.refresh): an execution may wait for an
 * approval longer than a definition no start names any more is kept.
 */
export function startStrandedSweep(p: Platform, log: Logger, batch = OPEN_BATCH): Sweeper {
  const ns = p.config.WF_NAMESPACE;
  const after: Record<OpenStatus, string | undefined> = { RUNNING: undefined, AWAITING_APPROVAL: undefined };
  const keep = keepDefinitions(p, log);
  const open = async (status: OpenStatus, before: number, now: number) => {
    const { items, next } = await p.store.executions.listOpenBefore(status, before, batch, after[status]);
    after[status] = next ?? undefined;
    await keep(items, now);
    return items;
  };
  const pass = async (now: number): Promise<number> => {
    const before = now - STALE_AFTER_MS;
    // A dead process holding many executions is asked once a pass: each unanswered question waits seconds.
    const silent = new Set<string>();
    const missing: Missing[] = [];
    for (const status of ["RUNNING", "AWAITING_APPROVAL"] as const)
      for (const e of await open(status, before, now)) {
        // Held (AWAITING_APPROVAL too: a resume's run wrote its hold before the approval's decision moved the status
        // on, as a debug run's or a takeover's first write does, then died): taken over.
        if (e.holder !== null) {
          if (await heldByTheDead(p, e.id, e.holder, before, silent)) missing.push(takeover(ns, e.id, e.holder));
          continue;
        }
        const found =
          status === "RUNNING"
            ? (idle(ns, e, before) ?? overdue(ns, e, before) ?? (await childEnded(p, e, before)))
            : await approvalSettled(p, e, before);
        if (found) missing.push(found);
      }
    const sent: string[] = [];
    for (const m of missing) {
      if (m.unlessQueued && (await queuedCommand(p.jsm, ns, m.subject)) !== null) continue;
      await retryTransient(() => p.js.publish(m.subject, JSON.stringify(m.payload), { msgID: m.msgId }));
      countStranded(m.command);
      sent.push(m.msgId);
    }
    if (sent.length > 0) log.warn("stranded executions brought back", { commands: sent });
    return sent.length;
  };
  return startSweeper(pass, p.config.WF_RETENTION_SWEEP_MS, log, "stranded execution sweep");
}

/**
 * Puts again the definitions (and variables) open executions' records name, where due (StoredDefinitions.refresh). A failure is
 * logged and tried again at the next pass: it must not keep the sweep from bringing executions back.
 */
function keepDefinitions(p: Platform, log: Logger): (open: ExecutionSnapshot[], now: number) => Promise<void> {
  const ns = p.config.WF_NAMESPACE;
  let definitions: Promise<StoredDefinitions> | null = null;
  return async (open, now) => {
    try {
      definitions ??= StoredDefinitions.open(p.nc, ns, p.placement, log, p.config.WF_EXECUTION_RETENTION);
      const stored = await definitions;
      for (const e of open) {
        await stored.refresh(e.definition, e.ownerId, now);
        await stored.refresh(e.vars, e.ownerId, now);
      }
    } catch (err) {
      definitions = null;
      log.warn("could not keep the definitions of open executions stored", { err });
    }
  };
}

/**
 * Whether execution `id`, held by `holder`, has lost it and its command: held since before `before`, its command not
 * stored, and its holder (unless `silent` already this pass) not saying it still runs it.
 */
async function heldByTheDead(
  p: Pick<Platform, "jsm" | "nc" | "config">,
  id: string,
  holder: Holder,
  before: number,
  silent: Set<string>,
): Promise<boolean> {
  const ns = p.config.WF_NAMESPACE;
  if (holder.since > before || (await commandStored(p.jsm, ns, id, holder.seq))) return false;
  if (silent.has(holder.actor)) return true;
  if (await holderAlive(p.nc, ns, holder.actor, id)) return false;
  silent.add(holder.actor);
  return true;
}

/**
 * Whether the command stored at `seq` is still there, or a rescued copy of it (orphans.ts) on the execution's start
 * or resume subject (or the resume's of a version before the resume lanes): the work queue keeps a command until it
 * is acknowledged.
 */
async function commandStored(jsm: JetStreamManager, ns: string, id: string, seq: number): Promise<boolean> {
  if ((await jsm.streams.getMessage(streamNames(ns).cmd, { seq })) !== null) return true;
  const s = subjects(ns);
  for (const subject of [s.execStart(id), s.execResume(id), s.execResumeBefore(id)]) {
    const last = await queuedCommand(jsm, ns, subject);
    if (last !== null && commandSeq({ seq: last.seq, headers: last.header }) === seq) return true;
  }
  return false;
}

function takeover(ns: string, id: string, { actor, seq }: Holder): Missing {
  const payload: ResumeCommand = { executionId: id, reason: "takeover", from: { actor, seq } };
  const subject = subjects(ns).execResume(id);
  return { command: "takeover", subject, payload, msgId: `takeover:${id}:${seq}`, unlessQueued: false };
}

/** The idle command a debugger's pause at parked `e` sends itself, once it has been idle since before `before`. */
function idle(ns: string, e: ExecutionSnapshot, before: number): Missing | null {
  const pause = e.debug?.pause;
  const due = e.debug ? idleDue(e.debug) : null;
  if (!pause || due === null || due >= before) return null;
  const payload: DebugIdleCommand = { executionId: e.id, command: "idle", pauseId: pause.id };
  const subject = subjects(ns).execDebug(e.id);
  return { command: "debug_idle", subject, payload, msgId: `idle:${pause.id}-${due}`, unlessQueued: true };
}

/**
 * The resume the timer of parked `e` sends, for the earliest time a running step waits for (a wait's end, a retry's
 * next attempt, a timeout's deadline) when that is before `before`; otherwise null. A debugger's pause stops the
 * clock (its own idle timer ends it), so nothing is overdue while one holds `e`.
 */
function overdue(ns: string, e: ExecutionSnapshot, before: number): Missing | null {
  if (e.debug?.pause) return null;
  let found: { at: number; stepPath: string } | null = null;
  for (const [stepPath, st] of Object.entries(e.steps)) {
    if (st.status !== "RUNNING") continue;
    for (const at of [st.waitUntil, st.retryAt, st.deadline]) {
      if (at !== null && at < before && (found === null || at < found.at)) found = { at, stepPath };
    }
  }
  if (found === null) return null;
  const payload: ResumeCommand = { executionId: e.id, reason: "timer", stepPath: found.stepPath };
  const subject = subjects(ns).execResume(e.id);
  return { command: "timer", subject, payload, msgId: `overdue:${e.id}:${found.at}`, unlessQueued: true };
}

/** The resume a sub-workflow's end sends, for the first running step of parked `e` whose child ended before `before`. */
async function childEnded(
  p: Pick<Platform, "store" | "config">,
  e: ExecutionSnapshot,
  before: number,
): Promise<Missing | null> {
  for (const [stepPath, st] of Object.entries(e.steps)) {
    if (st.status !== "RUNNING" || st.childExecutionId === null) continue;
    const child = (await p.store.executions.get(st.childExecutionId))?.value;
    if (!child || !TERMINAL_STATUSES.has(child.status) || (child.completedAt ?? before) >= before) continue;
    const payload: ResumeCommand = { executionId: e.id, reason: "child", stepPath };
    const subject = subjects(p.config.WF_NAMESPACE).execResume(e.id);
    return { command: "child", subject, payload, msgId: `child:${child.id}`, unlessQueued: true };
  }
  return null;
}

/**
 * What `e`'s approval lacks, for the first step awaiting one: the expiry its timer sends, once it expired before
 * `before`; or the resume its decision sends, once it was decided before `before`.
 */
async function approvalSettled(
  p: Pick<Platform, "store" | "config">,
  e: ExecutionSnapshot,
  before: number,
): Promise<Missing | null> {
  const s = subjects(p.config.WF_NAMESPACE);
  for (const st of Object.values(e.steps)) {
    if (st.status !== "AWAITING_APPROVAL" || st.approvalId === null) continue;
    const a = (await p.store.approvals.get(st.approvalId))?.value;
    if (!a) continue;
    if (a.status === "PENDING") {
      if (a.expiresAt >= before) continue;
      const payload: ApprovalExpireCommand = { approvalId: a.id, executionId: a.executionId };
      const subject = s.approval("expire", a.id, a.executionId);
      return { command: "approval_expiry", subject, payload, msgId: `expire:${a.id}`, unlessQueued: true };
    }
    if ((a.decidedAt ?? before) >= before) continue;
    const payload: ResumeCommand = { executionId: e.id, reason: "approval", stepPath: a.stepName };
    const msgId = `approval:${a.id}:${a.status}:${a.decidedAt ?? 0}`;
    return { command: "approval", subject: s.execResume(e.id), payload, msgId, unlessQueued: true };
  }
  return null;
}
