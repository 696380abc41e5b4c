import type { JsMsg } from "@nats-io/jetstream";
import type { z } from "zod";
import { AlreadyExistsError, CasConflictError } from "@wf/shared/errors";
import { checkStart, firstSnapshot, TERMINAL_STATUSES, type ExecutionSnapshot, type StepState } from "@wf/shared/execution";
import type { Logger } from "@wf/shared/log";
import { CancelCommand, ResumeCommand, StartCommand } from "@wf/shared/messages";
import type { Versioned } from "@wf/shared/store";
import { WorkflowSchema, type Workflow } from "@wf/shared/workflow";
import { Committer } from "../run/committer";
import { ExecutionRun, inFlightType } from "../run/execution-run";
import { LostOwnershipError } from "../run/signals";
import { loadRunSecrets } from "./ai-effects";
import { notifyParent, runEffects, type EffectDeps } from "./effects";

export interface ExecutorActorDeps extends EffectDeps {
  /** Unique per process: who holds an execution. */
  actorId: string;
  leaseMs: number;
  maxDeliver: number;
  redeliverOnce: boolean;
  log: Logger;
}

/** Sources whose in-flight executions are not replayed after a crash (decisions.md, Restart). */
const NOT_REPLAYED = new Set(["open_api", "webhook"]);
const BUSY_RETRY_MS = 100;
const BUSY_MAX_MS = 1_000;
/** Deliveries of a `pending` start that may find no snapshot before it is dropped: about 6 s of backoff. */
const PENDING_READ_ATTEMPTS = 10;

/**
 * Handles execution commands. One execution is run by at most one actor at a time: the holder
 * recorded in its snapshot by compare-and-set, tied to the command message whose lease
 * (AckWait, kept alive by `working()`) it holds. A command for an execution held under another
 * message waits (`nak` with a delay); the same message delivered again means its holder died,
 * and the new delivery takes over.
 */
export class ExecutorActor {
  private readonly running = new Map<string, ExecutionRun>();
  /** Executions a start or resume command is being handled for in this process. */
  private readonly claimed = new Set<string>();

  constructor(private readonly d: ExecutorActorDeps) {}

  get activeCount(): number {
    return this.running.size;
  }

  /**
   * Acknowledges a handled command. In the test mode WF_REDELIVER_ONCE every command is handled
   * twice, acknowledged only on its second delivery: the tests then prove the handlers idempotent.
   */
  private done(m: JsMsg): void {
    if (this.d.redeliverOnce && m.info.deliveryCount === 1) m.nak();
    else m.ack();
  }

  /** Cancel arrives on every replica through a plain subscription too: the holder acts at once. */
  cancelLocal(executionId: string): void {
    this.running.get(executionId)?.cancel();
  }

  async handle(m: JsMsg): Promise<void> {
    const [, , , verb, executionId] = m.subject.split(".");
    // One command per execution at a time in this process: a second delivery of the same
    // message (its lease lapsed under load) must not run beside the first.
    const exclusive = verb === "start" || verb === "resume";
    if (exclusive && executionId !== undefined) {
      if (this.claimed.has(executionId)) {
        this.retryLater(m);
        return;
      }
      this.claimed.add(executionId);
    }
    // The lease is kept from the first moment, not only once the run begins.
    const heartbeat = setInterval(() => m.working(), Math.max(250, Math.floor(this.d.leaseMs / 3)));
    try {
      const body: unknown = JSON.parse(m.string());
      if (verb === "start") await this.onStart(m, StartCommand.parse(body));
      else if (verb === "resume") await this.onResume(m, ResumeCommand.parse(body).executionId);
      else if (verb === "cancel") await this.onCancel(m, CancelCommand.parse(body).executionId);
      else m.term(`unknown command ${verb}`);
    } catch (err) {
      if (err instanceof SyntaxError || (err as Error)?.name === "ZodError") {
        this.d.log.error("poison command: malformed", { subject: m.subject, err });
        m.term("malformed command");
        return;
      }
      if (err instanceof LostOwnershipError) {
        this.d.log.warn("lost an execution to another actor", { subject: m.subject });
        return;
      }
      this.d.log.error("command failed; will be redelivered", { subject: m.subject, err });
      if (m.info.deliveryCount >= this.d.maxDeliver) {
        await this.giveUp(m, err).catch((e: unknown) => this.d.log.error("could not record a poison command", { err: e }));
        m.term("gave up");
      } else m.nak(Math.min(30_000, 1_000 * m.info.deliveryCount));
    } finally {
      clearInterval(heartbeat);
      if (exclusive && executionId !== undefined) this.claimed.delete(executionId);
    }
  }

  /** Held elsewhere (or here, under another message): come back soon (jittered), then less often. */
  private retryLater(m: JsMsg): void {
    const backoff = Math.min(BUSY_MAX_MS, BUSY_RETRY_MS * 2 ** Math.min(m.info.deliveryCount - 1, 4));
    m.nak(backoff + Math.floor(Math.random() * BUSY_RETRY_MS));
  }

  /** A command that kept failing is given up: its execution ends FAILED, saying why. */
  private async giveUp(m: JsMsg, err: unknown): Promise<void> {
    const executionId = m.subject.split(".")[4];
    if (!executionId) return;
    for (;;) {
      const v = await this.d.store.executions.get(executionId);
      if (!v || TERMINAL_STATUSES.has(v.value.status)) return;
      const c = new Committer(v.value, v.version, this.d.store, this.d.js, this.d.ns, this.d.resultLimits, "guest");
      const s = c.snap;
      s.status = "FAILED";
      s.error = `gave up after ${m.info.deliveryCount} failed deliveries: ${err instanceof Error ? err.message : String(err)}`;
      s.completedAt = Date.now();
      s.holder = null;
      c.emit("exec_failed", undefined, { status: s.status, error: s.error });
      try {
        await c.settle();
        await notifyParent(this.d.js, this.d.ns, s);
        return;
      } catch (e) {
        if (!(e instanceof CasConflictError)) throw e;
      }
    }
  }

  private async onStart(m: JsMsg, cmd: z.output<typeof StartCommand>): Promise<void> {
    if (cmd.pending) {
      const pending = await this.d.store.executions.get(cmd.executionId);
      if (pending) return this.acquireAndRun(m, pending);
      // A read served by a replica that lags the write is given a moment; after that the
      // execution is gone: the starter withdrew it when its publish seemed to fail, and told its
      // caller the start failed. (On KV an announced execution is read from this very command,
      // at version 0, and the first write creates its record.)
      if (m.info.deliveryCount < PENDING_READ_ATTEMPTS) return this.retryLater(m);
      this.d.log.warn("start command of an execution that is not stored any more: dropped", { executionId: cmd.executionId });
      this.done(m);
      return;
    }
    // Create first, read only if that fails: a first delivery (the common case) costs one write.
    const now = Date.now();
    const checked = checkStart(cmd.workflow.definition, cmd.inputs);
    const snap = firstSnapshot(cmd, checked, "RUNNING", { actor: this.d.actorId, seq: m.seq, since: now }, now);
    const problem = checked.ok ? null : checked.error;
    const c = new Committer(snap, 0, this.d.store, this.d.js, this.d.ns, this.d.resultLimits);
    c.emit("exec_started", undefined, { status: "RUNNING", triggerSource: snap.triggerSource });
    if (problem) c.emit("exec_failed", undefined, { status: "FAILED", error: problem });
    try {
      await c.create();
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
      const existing = await this.d.store.executions.get(cmd.executionId);
      if (existing) return this.acquireAndRun(m, existing);
      throw err;
    }
    if (!checked.ok) {
      await c.settle();
      await notifyParent(this.d.js, this.d.ns, snap);
      this.done(m);
      return;
    }
    await this.drive(m, c, checked.workflow);
  }

  private async onResume(m: JsMsg, executionId: string): Promise<void> {
    const v = await this.d.store.executions.get(executionId);
    if (!v) {
      m.term("unknown execution");
      return;
    }
    await this.acquireAndRun(m, v);
  }

  private async acquireAndRun(m: JsMsg, first: Versioned<ExecutionSnapshot>): Promise<void> {
    let v: Versioned<ExecutionSnapshot> | null = first;
    for (;;) {
      if (!v || TERMINAL_STATUSES.has(v.value.status)) {
        this.done(m);
        return;
      }
      const snap = v.value;
      if (snap.holder && snap.holder.seq !== m.seq) {
        this.retryLater(m);
        return;
      }
      const takeover = snap.holder !== null;
      const wf = WorkflowSchema.parse(snap.definition);
      snap.holder = { actor: this.d.actorId, seq: m.seq, since: Date.now() };
      const c = new Committer(snap, v.version, this.d.store, this.d.js, this.d.ns, this.d.resultLimits);
      c.touch();
      if (takeover) {
        // The events of the last change may never have reached the stream.
        c.republishOutbox();
        const inFlight = Object.entries(snap.steps).filter(([, st]) => isInFlight(st));
        if (inFlight.length && NOT_REPLAYED.has(snap.triggerSource)) {
          this.interrupt(c, inFlight);
          try {
            await c.settle();
          } catch (err) {
            if (err instanceof LostOwnershipError) {
              v = await this.d.store.executions.get(snap.id);
              continue;
            }
            throw err;
          }
          await notifyParent(this.d.js, this.d.ns, c.snap);
          this.done(m);
          return;
        }
        if (inFlight.length) c.emit("exec_resumed", undefined, { rerunning: inFlight.map(([p]) => p) });
      }
      if (snap.status === "PENDING") {
        snap.status = "RUNNING";
        snap.startedAt = Date.now();
        c.emit("exec_started", undefined, { status: "RUNNING", triggerSource: snap.triggerSource });
      }
      try {
        await c.flush();
      } catch (err) {
        if (!(err instanceof LostOwnershipError || err instanceof CasConflictError)) throw err;
        v = await this.d.store.executions.get(snap.id);
        continue;
      }
      await this.drive(m, c, wf);
      return;
    }
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

  /** Runs the execution while holding `m`, then parks or finishes it and acknowledges `m`. */
  private async drive(m: JsMsg, c: Committer, wf: Workflow): Promise<void> {
    const id = c.snap.id;
    const secrets = await loadRunSecrets(this.d, c.snap);
    c.masker.add(Object.values(secrets));
    const fx = runEffects(this.d, c.snap, secrets);
    const run = new ExecutionRun(c, wf, fx);
    this.running.set(id, run);
    try {
      const result = await run.run();
      c.snap.holder = null;
      c.touch();
      await c.settle();
      if (result === "terminal") await notifyParent(this.d.js, this.d.ns, c.snap);
      this.done(m);
    } catch (err) {
      // Branches still running must stop: the redelivered message starts them over.
      run.cancel();
      throw err;
    } finally {
      this.running.delete(id);
      await fx.dispose();
    }
  }

  private async onCancel(m: JsMsg, executionId: string): Promise<void> {
    this.cancelLocal(executionId);
    for (;;) {
      const v = await this.d.store.executions.get(executionId);
      if (!v || TERMINAL_STATUSES.has(v.value.status)) {
        this.done(m);
        return;
      }
      const snap = v.value;
      snap.cancelRequested = true;
      const c = new Committer(snap, v.version, this.d.store, this.d.js, this.d.ns, this.d.resultLimits, "guest");
      if (snap.holder === null) {
        // Parked or pending: nobody runs it, so the cancel finishes it here.
        const wf = WorkflowSchema.safeParse(snap.definition);
        if (wf.success) await new ExecutionRun(c, wf.data, runEffects(this.d, snap)).finishCancelled();
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
      if (snap.status === "CANCELLED") await notifyParent(this.d.js, this.d.ns, snap);
      this.done(m);
      return;
    }
  }
}

function isInFlight(st: StepState): boolean {
  return st.status === "RUNNING" && st.attempts > 0 && st.retryAt === null && inFlightType(st);
}
