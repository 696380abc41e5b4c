import type { JsMsg } from "@nats-io/jetstream";
import type { z } from "zod";
import { AlreadyExistsError, CasConflictError, TerminalError } from "@wf/shared/errors";
import {
  checkStart,
  firstSnapshot,
  parseDefinition,
  sharedDefinition,
  TERMINAL_STATUSES,
  unstoredDefinition,
  type ExecutionSnapshot,
  type StepState,
} from "@wf/shared/execution";
import { CancelCommand, DebugMessage, FailCommand, ResumeCommand, StartCommand } from "@wf/shared/messages";
import {
  command,
  commandSeq,
  ORPHAN_OF_HEADER,
  retryTransient,
  startDefinition,
  TIMER_DUE_HEADER,
  type Handled,
  type StoredDefinitions,
} from "@wf/shared/nats";
import type { Versioned } from "@wf/shared/store";
import type { Workflow } from "@wf/shared/workflow";
import { Committer } from "../run/committer";
import { heldByPause } from "../run/debug/debugger";
import { ExecutionRun } from "../run/execution-run";
import { mayHaveActed } from "../run/step-effects";
import { CancelledError, LostOwnershipError, StartTakenError } from "../run/signals";
import { handleDebugMessage } from "./debug-commands";
import { FinishedEndings } from "./finished-endings";
import { PublishedOutboxes } from "./published-outboxes";
import { loadRunSecrets } from "./live-ai-effects";
import { handOver, notifyParent, runEffects, type EffectDeps } from "./live-effects";
import { reuseSourceSteps } from "./rerun-snapshot";
import { takeStepTestContext } from "./step-test-snapshot";

export interface ExecutorActorDeps extends EffectDeps {
  /** Unique per process: who holds an execution. */
  actorId: string;
  /** Whether another executor process says it still runs the execution (@wf/shared/nats holders.ts). */
  holderAlive(actorId: string, executionId: string): Promise<boolean>;
  /** The commands' lease (AckWait). */
  leaseMs: number;
  /** Where definitions are stored once and read by reference, by start commands and records. */
  definitions: StoredDefinitions;
}

/** Sources whose in-flight executions are not replayed after a crash (docs/architecture.md, Restarts). */
const NOT_REPLAYED = new Set(["open_api", "webhook"]);
const BUSY_RETRY_MS = 100;
const BUSY_MAX_MS = 1_000;
/** Deliveries of a `pending` start that may find no snapshot before it is dropped: about 6 s of backoff. */
const PENDING_READ_ATTEMPTS = 10;
/** The events of a run's end or park, taken back when a cancel recorded meanwhile overrides it (drive). */
const OVERRIDDEN_BY_CANCEL: ReadonlySet<string> = new Set(["exec_completed", "exec_failed", "exec_parked"]);

/**
 * Handles execution commands. One execution is run by at most one actor at a time: the holder
 * recorded in its snapshot, tied to the command message whose lease it holds. A command held under
 * another message waits (`nak` with a delay); the same message again (or its rescued copy, same
 * `commandSeq`) means the lease lapsed, and it takes over once the holder, asked, does not say it
 * still runs it (docs/architecture.md#executions).
 */
export class ExecutorActor {
  /** Each run in this process, with its record (whose definition is kept stored while it runs). */
  private readonly running = new Map<string, { run: ExecutionRun; record: Committer }>();
  /** Executions a start or resume command is being handled for in this process. */
  private readonly claimed = new Set<string>();
  /** The parks this process wrote whose events the stream acknowledged: resumed here, they are not published again. */
  private readonly published = new PublishedOutboxes();
  /** The endings this process wrote and saw through: a command delivered again after one does not finish it again. */
  private readonly ended = new FinishedEndings();

  constructor(private readonly deps: ExecutorActorDeps) {}

  get activeCount(): number {
    return this.running.size;
  }

  /** Whether this process runs the execution now (or is taking it up). */
  holds(executionId: string): boolean {
    return this.claimed.has(executionId) || this.running.has(executionId);
  }

  /**
   * Puts again, where due at `now`, the stored definitions (and variables) of the executions this process runs
   * (StoredDefinitions refresh): a run may go on for days without a park or resume, and each of its writes names its definition while
   * that was put within two days.
   */
  async keepDefinitions(now: number): Promise<void> {
    for (const { record } of [...this.running.values()]) {
      await this.deps.definitions.refresh(record.snap.definition, record.snap.ownerId, now);
      await this.deps.definitions.refresh(record.snap.vars, record.snap.ownerId, now);
    }
  }

  /** Cancel arrives on every replica through a plain subscription too: the holder acts at once. */
  cancelLocal(executionId: string, reason?: string): void {
    this.running.get(executionId)?.run.cancel(reason);
  }

  /** The executor's commands, by the verb of their subject (`<ns>.cmd.exec.<verb>.<execId>`) or their lane's. */
  commands() {
    return {
      start: command(StartCommand, (cmd, m) => this.exclusive(m, () => this.onStart(m, cmd))),
      resume: command(ResumeCommand, (cmd, m) => this.exclusive(m, () => this.onResume(m, cmd))),
      cancel: command(CancelCommand, (cmd) => this.onCancel(cmd.executionId, cmd.reason)),
      fail: command(FailCommand, (cmd) => this.fail(cmd.executionId, cmd.reason)),
      debug: command(DebugMessage, (cmd, m) => this.onDebug(cmd, m)),
    };
  }

  /** A debugger's command, breakpoint change or pause's idle timer (./debug-commands.ts). */
  private onDebug(cmd: DebugMessage, m: JsMsg): Promise<Handled> {
    return handleDebugMessage(this.deps, cmd, () => this.retryLater(m));
  }

  /**
   * One start or resume per execution at a time in this process: a second delivery of the same
   * message (its lease lapsed under load) must not run beside the first.
   */
  private async exclusive(m: JsMsg, handle: () => Promise<Handled>): Promise<Handled> {
    const executionId = executionOfSubject(m.subject);
    if (this.claimed.has(executionId)) return this.retryLater(m);
    try {
      return await this.claiming(executionId, handle);
    } catch (err) {
      if (!(err instanceof LostOwnershipError)) throw err;
      this.deps.log.warn("lost an execution to another actor", { subject: m.subject, err });
      return "unacked";
    }
  }

  /**
   * Runs `handle` with the execution claimed in this process, unless something here claims it already: a start or
   * resume for it meanwhile is put back (exclusive). An ending written outside a run (a cancel, a fail) is so remembered
   * (endingSeenThrough) before such a command reads it: one read between its write and its note would finish it again.
   */
  private async claiming<T>(executionId: string, handle: () => Promise<T>): Promise<T> {
    if (this.claimed.has(executionId)) return handle();
    this.claimed.add(executionId);
    try {
      return await handle();
    } finally {
      this.claimed.delete(executionId);
    }
  }

  /**
   * The rest of an ending this process wrote (`c` settled): its parent told. It is then seen through, and remembered:
   * a command delivered again for it (a late wake) does nothing here.
   */
  private async endingSeenThrough(c: Committer): Promise<void> {
    await notifyParent(this.deps.js, this.deps.ns, c.snap);
    this.ended.note(c.snap.id, c.version);
  }

  /** Held elsewhere (or here, under another message): come back soon (jittered), then less often. */
  private retryLater(m: JsMsg): Handled {
    const backoff = Math.min(BUSY_MAX_MS, BUSY_RETRY_MS * 2 ** Math.min(m.info.deliveryCount - 1, 4));
    return { retryInMs: backoff + Math.floor(Math.random() * BUSY_RETRY_MS) };
  }

  /**
   * The give-up hook of the executor's commands, and the `fail` command of other services': the
   * execution ends FAILED, saying why, unless it has ended already.
   */
  fail(executionId: string, reason: string): Promise<void> {
    return this.claiming(executionId, async () => {
      for (;;) {
        await this.published.settled(executionId);
        const v = await this.deps.store.executions.get(executionId);
        if (!v || TERMINAL_STATUSES.has(v.value.status)) return;
        const c = this.committer(v.value, v.version, "guest");
        const s = c.snap;
        // A cancel answered already (its flag recorded) is kept to: the execution ends as it was told.
        s.status = s.cancelRequested ? "CANCELLED" : "FAILED";
        s.error = s.cancelRequested ? (s.cancelReason ?? "execution cancelled") : reason;
        s.completedAt = Date.now();
        s.holder = null;
        c.emit(s.status === "CANCELLED" ? "exec_cancelled" : "exec_failed", undefined, {
          status: s.status,
          error: s.error,
        });
        try {
          await c.settle();
        } catch (e) {
          if (!(e instanceof CasConflictError)) throw e;
          continue;
        }
        return this.endingSeenThrough(c);
      }
    });
  }

  private async onStart(m: JsMsg, cmd: z.output<typeof StartCommand>): Promise<Handled> {
    // An announce that left the record to us (KV: the command carries the definition) is created
    // as an unannounced start is: reading it first would find no record, then this very command.
    const carried = cmd.workflow.definition !== undefined || cmd.workflow.definitionRef !== undefined;
    const writtenByStarter = cmd.pending && (!carried || !this.deps.store.executions.announcedInCommand);
    if (writtenByStarter) {
      const pending = await this.deps.store.executions.getForWrite(cmd.executionId);
      if (pending) return this.acquireAndRun(m, pending);
      // A record not visible yet (MongoDB's insert goes beside the command's publish) is given a
      // moment; after that the execution is gone: the starter withdrew it when its publish seemed
      // to fail, and told its caller the start failed. (On KV an announced execution is read from
      // this very command, at version 0, and the first write creates its record.)
      if (m.info.deliveryCount < PENDING_READ_ATTEMPTS) return this.retryLater(m);
      this.deps.log.warn("start command of an execution that is not stored any more: dropped", {
        executionId: cmd.executionId,
      });
      return;
    }
    // Read only if the create fails: a first delivery (the common case) costs no write of its own; the
    // run's first write creates the record (Committer.deferCreate).
    const definition = await startDefinition(cmd.workflow, this.deps.definitions);
    const now = Date.now();
    const checked =
      definition === null && cmd.workflow.definitionRef !== undefined
        ? unstoredDefinition(cmd.workflow.definitionRef)
        : checkStart(definition, cmd.inputs, cmd.workflow.ownerId);
    const snap = firstSnapshot(
      cmd,
      checked,
      "RUNNING",
      { actor: this.deps.actorId, seq: commandSeq(m), since: now },
      now,
    );
    const problem = checked.ok ? null : checked.error;
    const c = this.committer(snap, 0);
    c.emit("exec_started", undefined, { status: "RUNNING", triggerSource: snap.triggerSource });
    if (problem) c.emit("exec_failed", undefined, { status: "FAILED", error: problem });
    const runnable =
      checked.ok &&
      (await reuseSourceSteps(c, checked.workflow, this.deps.store)) &&
      (await takeStepTestContext(c, checked.workflow, this.deps.store));
    try {
      if (!runnable) {
        await c.create();
        await c.settle();
        return await this.endingSeenThrough(c);
      }
      c.deferCreate();
      await this.drive(c, checked.workflow);
    } catch (err) {
      c.abandon();
      if (!(err instanceof AlreadyExistsError || err instanceof StartTakenError)) throw err;
      const existing = await this.deps.store.executions.getForWrite(cmd.executionId);
      if (!existing) throw err;
      // Ended by another writer (a cancel, another delivery), or by this run's own create that timed
      // out yet landed: its ending is finished again, which repeats nothing that already happened.
      if (err instanceof StartTakenError && TERMINAL_STATUSES.has(existing.value.status))
        return this.finishEnding(existing);
      return this.acquireAndRun(m, existing);
    }
  }

  private async onResume(m: JsMsg, cmd: z.output<typeof ResumeCommand>): Promise<Handled> {
    const v = await this.deps.store.executions.getForWrite(cmd.executionId);
    // Unknown: nothing to wake.
    if (!v) return;
    if (cmd.reason !== "timer" || cmd.stepPath === undefined) return this.acquireAndRun(m, v, cmd.from);
    return this.acquireAndRun(m, v, cmd.from, { path: cmd.stepPath, dueAt: timerDue(m) });
  }

  /**
   * `first`, and every record read here, is read as writes are checked against it (getForWrite): whether to wait
   * on a holder, take over from one, count the execution ended or write at its version is decided on it, and a
   * replica's answer may never come true.
   *
   * `lostHolder`: a takeover command names the holder whose own command is gone; that holder is taken over under
   * this command as under its own redelivered one, and any other holder is left alone.
   *
   * `wake`: the step whose durable timer fired this command, and the timer's due time where the command says it.
   */
  private async acquireAndRun(
    m: JsMsg,
    first: Versioned<ExecutionSnapshot>,
    lostHolder?: { actor: string; seq: number },
    wake?: TimerWake,
  ): Promise<Handled> {
    let v: Versioned<ExecutionSnapshot> | null = first;
    for (;;) {
      if (!v) return;
      if (TERMINAL_STATUSES.has(v.value.status)) {
        if (deliveredAgain(m) && !this.ended.has(v.value.id, v.version)) await this.finishEnding(v);
        return;
      }
      const snap = v.value;
      // A late wake (its step recorded past the wait it fired for) has nothing to do: taking the execution up would
      // only park it again, a write. Unless the record is held under this very command: its run died, and this takes over.
      if (wake && !heldUnder(snap, m) && wakeIsStale(snap.steps[wake.path], wake.dueAt)) return;
      const lost = lostHolder !== undefined && snap.holder !== null && sameCommand(snap.holder, lostHolder);
      // A takeover whose holder moved on (parked, ended, or taken over under a command of its own) has nothing to do.
      if (lostHolder && !lost) return;
      if (snap.holder && snap.holder.seq !== commandSeq(m) && !lost) return this.retryLater(m);
      // Its lease lapsed under a live holder (a consumer whose leader moved): asked again a lease
      // later, so that a long step does not use up the command's deliveries meanwhile. A takeover's
      // holder that answers goes on: it is dropped, and the scheduler asks again later.
      if (
        snap.holder &&
        snap.holder.actor !== this.deps.actorId &&
        (await this.deps.holderAlive(snap.holder.actor, snap.id))
      ) {
        return lost ? undefined : { retryInMs: this.deps.leaseMs };
      }
      const takeover = snap.holder !== null;
      const wf = storedWorkflow(snap);
      snap.holder = { actor: this.deps.actorId, seq: commandSeq(m), since: Date.now() };
      const c = this.committer(snap, v.version);
      c.touch();
      if (takeover) {
        // A step a debugger's pause holds (paused at its failure or inside its attempt) is not running.
        const inFlight = Object.entries(snap.steps).filter(
          ([path, st]) => mayHaveActed(wf, st) && !heldByPause(snap, path),
        );
        // A cancel recorded is kept to: the run ends CANCELLED (run()), not INTERRUPTED.
        if (inFlight.length && NOT_REPLAYED.has(snap.triggerSource) && !snap.cancelRequested) {
          this.interrupt(c, inFlight);
          try {
            await c.settle();
          } catch (err) {
            if (err instanceof LostOwnershipError || err instanceof CancelledError) {
              v = await this.deps.store.executions.getForWrite(snap.id);
              continue;
            }
            throw err;
          }
          return this.endingSeenThrough(c);
        }
        if (inFlight.length) c.emit("exec_resumed", undefined, { rerunning: inFlight.map(([p]) => p) });
      }
      if (snap.status === "PENDING") {
        snap.status = "RUNNING";
        snap.startedAt = Date.now();
        c.emit("exec_started", undefined, { status: "RUNNING", triggerSource: snap.triggerSource });
        // A cancel recorded before the start was taken (answered 200 already) ends it CANCELLED before its first step
        // (run()): nothing to take from a source, and no source missing to end it FAILED instead.
        if (!snap.cancelRequested && (await reuseSourceSteps(c, wf, this.deps.store)))
          await takeStepTestContext(c, wf, this.deps.store);
      }
      // Taking hold is written by the run's first write, as a start from the API is: a second runner
      // meanwhile loses that compare-and-set before anything acts outside (docs/architecture.md#durability-by-effect).
      // A takeover (its interruptions and republished outbox), a debug run and an ending are written now.
      if (takeover || snap.debug !== null || TERMINAL_STATUSES.has(snap.status)) {
        try {
          await c.flush();
        } catch (err) {
          // A cancel recorded meanwhile is read with the record, and decides.
          if (!(err instanceof LostOwnershipError || err instanceof CasConflictError || err instanceof CancelledError))
            throw err;
          v = await this.deps.store.executions.getForWrite(snap.id);
          continue;
        }
      }
      // A rerun or a step test that could not be made has ended.
      if (TERMINAL_STATUSES.has(snap.status)) {
        await c.settle();
        return this.endingSeenThrough(c);
      }
      await this.drive(c, wf, wake?.path ?? null);
      return;
    }
  }

  /**
   * The rest of an ending, done again: a command delivered again for an ended execution may be the
   * one its holder died holding, after the final write and before what follows it. Each part is
   * idempotent: the final outbox is published again (its events already stored are dropped by id,
   * within the streams' duplicate window, so not later), the list entries get the final status,
   * the parent is told.
   */
  private async finishEnding(v: Versioned<ExecutionSnapshot>): Promise<void> {
    const snap = v.value;
    const c = this.committer(snap, v.version, "guest");
    c.publishInherited();
    await c.settle();
    await retryTransient(() => this.deps.store.executions.relist(snap.id));
    await this.endingSeenThrough(c);
  }

  /**
   * The single writer of `snap` at `version` through this actor's store and event publisher. The events of the record's
   * last write may never have reached the stream (its writer died before publishing them): its first write publishes
   * them first (Committer.publishInherited), a resume's as a cancel's or a fail's, unless this process parked it so.
   */
  private committer(snap: ExecutionSnapshot, version: number, role?: "guest"): Committer {
    const { store, events, ns, resultLimits } = this.deps;
    const c = new Committer(snap, version, store, events, ns, resultLimits, role);
    if (this.published.take(snap)) c.outboxPublished();
    return c;
  }

  private interrupt(c: Committer, inFlight: [string, StepState][]): void {
    const s = c.snap;
    const now = Date.now();
    const names = inFlight.map(([p]) => `\`${p}\``).join(", ");
    for (const [path, st] of inFlight) {
      st.status = "FAILED";
      st.error = "interrupted: the executor stopped while this step was running";
      st.completedAt = now;
      st.duration = st.startedAt === null ? null : now - st.startedAt;
      c.emit("step_failed", path, { status: st.status, error: st.error });
    }
    s.status = "INTERRUPTED";
    s.error = `interrupted: the executor stopped while step ${names} was running; executions started by ${s.triggerSource} are not replayed`;
    s.completedAt = now;
    s.currentStep = null;
    s.holder = null;
    c.emit("exec_interrupted", undefined, { status: s.status, error: s.error });
  }

  /** Runs the execution while holding its command, then parks or finishes it. */
  private async drive(c: Committer, wf: Workflow, wokenFor: string | null = null): Promise<void> {
    const id = c.snap.id;
    const secrets = await loadRunSecrets(this.deps, c.snap);
    c.masker.add(Object.values(secrets));
    // A saved version's definition is stored before the run's first write, which then names it (a start that carried
    // it, a record written whole). An inline run's is not: stored for good, each distinct one would outlive the
    // record that retention removes. One holding a secret's value is kept masked in the record, and stored nowhere.
    if (c.snap.workflowVersion !== null && !c.masker.holds(c.snap.definition))
      await this.deps.definitions.refOf(c.snap.definition, c.snap.ownerId);
    const fx = runEffects(this.deps, c.snap, secrets, wokenFor);
    const run = new ExecutionRun(c, wf, fx);
    this.running.set(id, { run, record: c });
    try {
      let result = await run.run();
      c.snap.holder = null;
      c.touch();
      try {
        if (result === "parked") await this.published.park(c.snap, c.settle());
        else await c.settle();
      } catch (err) {
        if (!(err instanceof CancelledError)) throw err;
        // Cancelled while this end or park was being written (a cancel answered 200 flagged the record first): the
        // execution ends CANCELLED instead, as a cancel ends a parked one; its end is not announced.
        c.withdraw(OVERRIDDEN_BY_CANCEL);
        c.snap.output = null;
        await run.finishCancelled(err.message);
        result = "terminal";
        await c.settle();
      }
      if (result === "terminal") await this.endingSeenThrough(c);
      // Parked because this process stops (or for a timer as well: the resume then finds it not due).
      else if (this.deps.stopping()) await handOver(this.deps.js, this.deps.ns, id);
    } catch (err) {
      // Branches still running must stop: the redelivered message starts them over.
      run.cancel();
      throw err;
    } finally {
      this.running.delete(id);
      await fx.dispose();
    }
  }

  private async onCancel(executionId: string, reason?: string): Promise<void> {
    this.cancelLocal(executionId, reason);
    await this.claiming(executionId, () => this.cancelRecord(executionId, reason));
  }

  /** Flags the record cancelled: its holder ends the run; one held by nobody (parked, pending) is ended here. */
  private async cancelRecord(executionId: string, reason?: string): Promise<void> {
    for (;;) {
      await this.published.settled(executionId);
      const v = await this.deps.store.executions.get(executionId);
      if (!v || TERMINAL_STATUSES.has(v.value.status)) return;
      const snap = v.value;
      // Held, and flagged already (the edge flags it before answering): the holder stops at once (cancelLocal), or
      // at its next write; a write here would add nothing.
      if (snap.holder !== null && snap.cancelRequested && (reason === undefined || snap.cancelReason !== undefined))
        return;
      snap.cancelRequested = true;
      // Kept for the holder, which ends the run with it at its next write, or for an executor that takes it over.
      if (reason !== undefined) snap.cancelReason ??= reason;
      const c = this.committer(snap, v.version, "guest");
      if (snap.holder === null) {
        // Parked or pending: nobody runs it, so the cancel finishes it here.
        const wf = parseDefinition(snap.definition, snap.ownerId);
        if (wf.success) await new ExecutionRun(c, wf.data, runEffects(this.deps, snap)).finishCancelled(reason);
        else {
          snap.status = "CANCELLED";
          snap.completedAt = Date.now();
          c.emit("exec_cancelled", undefined, { status: "CANCELLED" });
        }
      } else {
        // The holder sees the flag on its next write (or at once, through cancelLocal).
        c.touch();
      }
      try {
        await c.settle();
      } catch (err) {
        if (err instanceof LostOwnershipError || err instanceof CasConflictError) continue;
        throw err;
      }
      if (snap.status === "CANCELLED") await this.endingSeenThrough(c);
      return;
    }
  }
}

/**
 * The token of `<ns>.cmd.exec.<verb>.<execId>`, or of a lane's `<ns>.cmd.<start|resume>.<lane>.<execId>`, that names the
 * execution.
 */
export function executionOfSubject(subject: string): string {
  return subject.split(".")[4] ?? "";
}

/**
 * The workflow an execution runs, as its snapshot keeps it: one that no longer parses (stored by another version)
 * cannot run.
 */
function storedWorkflow(snap: ExecutionSnapshot): Workflow {
  // Shared here, before its committer is made (which shares it too): the definition is serialised once, not twice.
  snap.definition = sharedDefinition(snap.definition, snap.ownerId);
  const wf = parseDefinition(snap.definition, snap.ownerId);
  if (wf.success) return wf.data;
  const problems = wf.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(definition)"}: ${i.message}`);
  throw new TerminalError(`the execution's stored workflow definition no longer parses (${problems.join("; ")})`);
}

function sameCommand(a: { actor: string; seq: number }, b: { actor: string; seq: number }): boolean {
  return a.actor === b.actor && a.seq === b.seq;
}

/** What a timer's resume command wakes: its step, and the timer's due time (null where the message does not say). */
interface TimerWake {
  path: string;
  dueAt: number | null;
}

/** The due time a fired timer's command carries (fireTimer), or null. */
function timerDue(m: JsMsg): number | null {
  const due = Number(m.headers?.get(TIMER_DUE_HEADER) || Number.NaN);
  return Number.isFinite(due) ? due : null;
}

/** Whether the record is held under `m` (or the command `m` is a rescued copy of). */
function heldUnder(snap: ExecutionSnapshot, m: JsMsg): boolean {
  return snap.holder !== null && snap.holder.seq === commandSeq(m);
}

/**
 * Whether a timer's wake comes after what it was armed for, by the step's record: the step ended (a short wait that
 * passed in memory while its timer was put back), or it waits, recorded, until times that are none of the timer's (an
 * earlier attempt's backoff or deadline, a wait begun again after a crash under a timer of its own), or it has its child
 * execution and no time of its own but its deadline (a sub-workflow start put off by the owner's budget clears its time
 * once the child starts; a child named and not started yet is its holder's to start). A step not recorded (or cleared
 * for a container's new attempt), or recorded as begun without its time or a child, is woken: a wait begun and not
 * written yet is begun again by that wake.
 */
function wakeIsStale(st: StepState | undefined, dueAt: number | null): boolean {
  if (st === undefined) return false;
  if (PAST_STEP.has(st.status)) return true;
  if (dueAt === null || st.status !== "RUNNING") return false;
  if (st.waitUntil === null && st.retryAt === null && st.childExecutionId === null) return false;
  return st.waitUntil !== dueAt && st.retryAt !== dueAt && st.deadline !== dueAt;
}

/** A step in one of these has no timer left to wait for: it does not run again unless a container's retry clears it. */
const PAST_STEP: ReadonlySet<StepState["status"]> = new Set([
  "COMPLETED",
  "SKIPPED",
  "FAILED",
  "CANCELLED",
  "REJECTED",
  "EXPIRED",
]);

/** Whether `m` was delivered before (or is a rescued copy of a command delivered before). */
function deliveredAgain(m: JsMsg): boolean {
  return m.info.redelivered || m.headers?.has(ORPHAN_OF_HEADER) === true;
}
