import { ExpressionError, evaluateCondition, renderTemplate } from "@wf/shared/expressions";
import { newId, type ExecutionSnapshot, type StepState, type StepStatus, type StepTest } from "@wf/shared/execution";
import type { ApprovalRecord } from "@wf/shared/store";
import { MAX_EXECUTION_FAN_OUT, STEP_TYPE_TABLE, walkSteps, type Step, type Workflow } from "@wf/shared/workflow";
import { approvalRecord, approvedRows, closedGateError } from "./approval-gate";
import { backoffMs } from "./backoff";
import { PURE_RUN_WRITE_MS, type RunCommitter } from "./committer";
import { Debugger, type Verdict } from "./debug/debugger";
import type { RunEffects } from "./effects";
import { nestedPaths } from "./nested-paths";
import { jsonBytes } from "./result-limits";
import { expressionContext, rootScope, type Scope } from "./scope";
import { CancelledError, LostOwnershipError, throwIfAborted } from "./signals";
import { stepTestTarget } from "./step-test-target";
import { stepKind, type Attempt, type Outcome, type StepContext } from "./steps";
import { FanOutBudget } from "./steps/fan-out-budget";
import { estimateStepCost } from "./steps/ai/cost-estimate";
import { actsOutside, carriesOwedWrite, writesBeforeActing } from "./step-effects";
import { untilDue, writeBegunWait } from "./until-due";

/**
 * A running step reached its deadline: its attempt fails, and a container's running children are cancelled with this
 * reason.
 */
class StepTimeoutError extends Error {
  constructor(
    readonly path: string,
    seconds: number,
  ) {
    super(`step \`${path}\` timed out after ${seconds} s`);
  }
}

const DONE: ReadonlySet<StepStatus> = new Set(["COMPLETED", "SKIPPED"]);
const CLOSED_GATE: ReadonlySet<StepStatus> = new Set(["REJECTED", "EXPIRED"]);

/**
 * The orchestration of one execution: replays what the snapshot records (finished steps do not
 * run again) and runs the rest, each step by its kind (./steps), side effects through
 * `RunEffects`. Every decision comes from the snapshot, so a run resumed on another replica takes
 * the same path. "parked": all that is left waits on a durable timer or a child execution.
 */
export class ExecutionRun {
  private readonly names: string[] = [];
  private readonly abort = new AbortController();
  private readonly ctx: StepContext;
  /** A debug run's breakpoints; null for any other run, which then never looks at them. */
  private readonly debug: Debugger | null;

  constructor(
    private readonly committer: RunCommitter,
    private readonly workflow: Workflow,
    private readonly effects: RunEffects,
  ) {
    walkSteps(workflow.steps, (step) => {
      this.names.push(step.name);
    });
    this.debug = committer.snap.debug
      ? new Debugger({
          committer,
          effects,
          workflow,
          names: this.names,
          stepInput: async (step, scope) => stepKind(step).input?.(this.ctx, step, scope),
        })
      : null;
    this.ctx = {
      committer,
      effects,
      workflow,
      debug: this.debug,
      render: (value, scope) => this.render(value, scope),
      runSequence: (steps, scope, opts) => this.runSequence(steps, scope, opts),
      fanOut: new FanOutBudget(MAX_EXECUTION_FAN_OUT - 1),
    };
  }

  private get snap(): ExecutionSnapshot {
    return this.committer.snap;
  }

  /** Every top-level step; for a step test, its one step alone, in the foreach item it names. */
  private async runTop(scope: Scope): Promise<Outcome> {
    const test = this.snap.stepTest;
    if (test === null) return this.runSequence(this.workflow.steps, scope);
    const target = await stepTestTarget(this.workflow, test, scope, (value, at) => this.render(value, at));
    if (target === null) return { kind: "failed", error: `no step \`${test.step}\` in the workflow` };
    if (target.kind === "refused") return this.failNew(target.step, target.path, target.error);
    return test.estimateOnly
      ? this.estimate(test, target.step, target.scope)
      : this.runSequence([target.step], target.scope);
  }

  cancel(reason?: string): void {
    this.abort.abort(new CancelledError(reason));
  }

  async run(): Promise<"terminal" | "parked"> {
    let outcome: Outcome;
    try {
      if (this.snap.cancelRequested) throw new CancelledError(this.snap.cancelReason);
      const scope = rootScope(this.abort.signal, this.effects.secrets);
      outcome = await this.runTop(scope);
      // A point kept waiting for an earlier one's turn, which this pass never came to: the run passes over it again.
      // What woke it was handled by the first pass, which armed again the timer that woke it early.
      while (outcome.kind === "parked" && this.debug?.passAgain()) {
        this.effects.wokenFor = null;
        outcome = await this.runTop(scope);
      }
      if (this.snap.cancelRequested) throw new CancelledError(this.snap.cancelReason);
      // Replayed while paused after its last step (a wake that came meanwhile): the pause holds.
      if (this.debug?.pausedStep && outcome.kind !== "failed") outcome = { kind: "parked" };
    } catch (err) {
      if (err instanceof LostOwnershipError) throw err;
      if (err instanceof CancelledError) {
        // Thrown by a write that found the cancel recorded: branches still running stop as at a cancel command.
        this.abort.abort(err);
        await this.finishCancelled(err.message);
        return "terminal";
      }
      throw err;
    }
    const s = this.snap;
    const now = Date.now();
    if (outcome.kind === "parked") {
      const waitingOn = this.parkedOn();
      // Parked, the run is still at a step (a wait, a backoff, an approval, a child, a pause), not the last one started.
      s.currentStep = this.debug?.pausedStep ?? waitingOn[0] ?? null;
      const awaiting = Object.values(s.steps).some((st) => st.status === "AWAITING_APPROVAL");
      if (awaiting) s.status = "AWAITING_APPROVAL";
      this.committer.emit("exec_parked", undefined, { status: s.status, waitingOn });
      return "parked";
    }
    // A parallel branch may still wait on an approval when another branch ends the run.
    await this.closeOpenGates(now, "execution ended");
    this.debug?.ended();
    s.completedAt = now;
    s.currentStep = null;
    const duration = now - (s.startedAt ?? now);
    if (outcome.kind === "failed") {
      const closedGate = Object.values(s.steps).find((st) => CLOSED_GATE.has(st.status));
      if (closedGate && s.stepTest === null) this.skipUnreached(this.workflow.steps, "");
      s.status = "FAILED";
      s.error = this.committer.budget.error(closedGate?.error ?? outcome.error);
      this.committer.emit("exec_failed", undefined, { status: s.status, error: s.error, duration });
    } else {
      s.status = "COMPLETED";
      s.output = outcome.kind === "completed" ? outcome.output : null;
      this.committer.emit("exec_completed", undefined, { status: s.status, output: s.output, duration });
    }
    return "terminal";
  }

  /**
   * A step test with `estimateOnly`: the tested llm or agent step's call rendered and priced, the
   * estimate being the execution's output; the step does not run, nor does any model answer.
   */
  private async estimate(test: StepTest, step: Step, scope: Scope): Promise<Outcome> {
    if (step.type !== "llm" && step.type !== "agent")
      return { kind: "failed", error: `step \`${test.step}\` is not an llm or agent step: it has no cost to estimate` };
    try {
      const estimate = await estimateStepCost(this.ctx, step, scope, test.lastUsage ?? null);
      return typeof estimate === "string"
        ? { kind: "failed", error: estimate }
        : { kind: "completed", output: estimate };
    } catch (err) {
      if (err instanceof ExpressionError) return { kind: "failed", error: expressionFailure(step.name, err) };
      throw err;
    }
  }

  /** Marks what was running or awaiting approval as CANCELLED; steps not reached stay absent. */
  async finishCancelled(error = "execution cancelled"): Promise<void> {
    const s = this.snap;
    const now = Date.now();
    await this.closeOpenGates(now, "execution cancelled");
    this.debug?.ended();
    for (const [path, st] of Object.entries(s.steps)) {
      if (st.status !== "RUNNING" && st.status !== "PENDING") continue;
      this.setStatus(st, "CANCELLED", now);
      if (st.childExecutionId) this.effects.cancelChild(st.childExecutionId);
      this.committer.emit("step_cancelled", path, { status: st.status });
    }
    s.status = "CANCELLED";
    s.error = error;
    s.completedAt = now;
    s.currentStep = null;
    this.committer.emit("exec_cancelled", undefined, { status: s.status, error });
  }

  /**
   * Steps still awaiting an approval when the run ends: their approvals are cancelled by
   * compare-and-set, racing any decision. A step whose approval was rejected or expired first
   * (its resume had not run yet) shows that decision; the others become CANCELLED.
   */
  private async closeOpenGates(now: number, reason: string): Promise<void> {
    for (const [path, st] of Object.entries(this.snap.steps)) {
      if (st.status !== "AWAITING_APPROVAL") continue;
      // Closing acts on the approval's record: a result left to the end's write (a container's last) is written first.
      await this.committer.writeOwed();
      const record = st.approvalId === null ? null : await this.effects.cancelApproval(st.approvalId, reason);
      if (record && (record.status === "REJECTED" || record.status === "EXPIRED")) {
        this.closeGate(path, st, record, record.status, now);
        continue;
      }
      this.setStatus(st, "CANCELLED", now);
      this.committer.emit("step_cancelled", path, { status: st.status, approvalId: st.approvalId });
    }
  }

  /** Whether a step still awaits its approval: the run's end closes it, which acts on the approval's record. */
  private gateOpen(): boolean {
    return Object.values(this.snap.steps).some((st) => st.status === "AWAITING_APPROVAL");
  }

  /** Steps of a sequence never reached because an approval closed the path: SKIPPED. */
  private skipUnreached(steps: readonly Step[], prefix: string): void {
    const now = Date.now();
    for (const step of steps) {
      const path = prefix + step.name;
      if (this.snap.steps[path]) continue;
      this.record(path, newState(step, "SKIPPED", now));
      this.committer.emit("step_skipped", path, { status: "SKIPPED", reason: "approval" });
    }
  }

  private parkedOn(): string[] {
    const on = Object.entries(this.snap.steps)
      .filter(
        ([, st]) =>
          st.status === "AWAITING_APPROVAL" ||
          (st.status === "RUNNING" && (st.waitUntil || st.retryAt || st.childExecutionId)),
      )
      .map(([path]) => path);
    const paused = this.debug?.pausedStep;
    return paused && !on.includes(paused) ? [...on, paused] : on;
  }

  private async runSequence(
    steps: readonly Step[],
    scope: Scope,
    opts: { lastWrittenAfter?: boolean } = {},
  ): Promise<Outcome> {
    let last: Outcome = { kind: "skipped" };
    for (const [i, step] of steps.entries()) {
      // Stopping: what is left is handed over (the actor asks another replica to resume it).
      if (this.effects.handingBack()) return { kind: "parked" };
      // Replayed, a step ended before this pass is in the record already: passing over it is no reason to write (but
      // in a debug run, where passing over it may judge a breakpoint after it).
      const recorded = this.snap.steps[scope.prefix + step.name];
      const replayed = this.debug === null && recorded !== undefined && DONE.has(recorded.status);
      const r = await this.runStep(step, scope);
      const endsRun = steps === this.workflow.steps && i === steps.length - 1;
      const next = steps[i + 1];
      if (this.committer.outboxFull) await this.committer.flush();
      else if (!replayed) {
        const after = this.writesAfter(step, r, next, endsRun, opts.lastWrittenAfter ?? false);
        if (after === "now") await this.committer.flush();
        else if (after === "owed") this.committer.oweWrite();
      }
      if (r.kind === "failed" && r.gateClosed) this.skipUnreached(steps.slice(i + 1), scope.prefix);
      if (r.kind === "failed" || r.kind === "parked") return r;
      if (r.kind === "completed") last = r;
    }
    return last;
  }

  /**
   * Durability by effect (docs/architecture.md#durability-by-effect): a step that acted outside
   * the service has its result written at once, unless the next step's start write carries it (or,
   * ending a foreach item or a parallel branch, what its worker does next: runSequence's `lastWrittenAfter`);
   * pure steps' results wait for the next write, or for PURE_RUN_WRITE_MS to have passed. The
   * workflow's last step leaves its result to the end write, which follows with nothing acting in
   * between, unless a gate left open has to be closed first. "owed": left to what runs next
   * (RunCommitter.oweWrite), whatever else acts before that write writes it first (another branch arming a timer while
   * the next step renders its input; a next step the record holds already, which may write nothing first). "no": left
   * to whatever write comes next.
   */
  private writesAfter(
    step: Step,
    r: Outcome,
    next: Step | undefined,
    endsRun: boolean,
    lastWrittenAfter: boolean,
  ): "now" | "owed" | "no" {
    if (r.kind !== "completed") return "no";
    if (endsRun && this.debug === null && !this.gateOpen()) return "no";
    if (!actsOutside(step)) return this.committer.unwrittenMs >= PURE_RUN_WRITE_MS ? "now" : "no";
    if (this.debug !== null) return "now";
    // A condition runs before that write, and may skip the step, which then writes nothing.
    const nextWritesItsStart = next !== undefined && writesBeforeActing(next) && next.condition === undefined;
    return nextWritesItsStart || (next === undefined && lastWrittenAfter) ? "owed" : "now";
  }

  private async runStep(step: Step, scope: Scope): Promise<Outcome> {
    const path = scope.prefix + step.name;
    let st = this.snap.steps[path];
    if (st && DONE.has(st.status)) {
      // Paused after it (a wake while paused): what holds it must not complete past the pause.
      if (this.debug?.pausedAfter(path)) return { kind: "parked" };
      // Completed while another branch was paused, a breakpoint matching after it: judged now, in its turn.
      if (this.debug?.waitsAfter(path) && (await this.debug.after(path, st, scope)).kind === "park")
        return { kind: "parked" };
      return st.status === "SKIPPED" ? { kind: "skipped" } : { kind: "completed", output: st.output };
    }
    if (st && st.status === "FAILED") return { kind: "failed", error: st.error ?? "failed" };
    if (st && CLOSED_GATE.has(st.status))
      return { kind: "failed", error: st.error ?? "approval closed", gateClosed: true };
    throwIfAborted(scope.signal);

    if (!st) {
      if (step.condition !== undefined) {
        let go: boolean;
        try {
          go = await evaluateCondition(
            step.condition,
            expressionContext(this.snap, this.names, scope),
            this.snap.ownerId,
            scope.signal,
          );
        } catch (err) {
          // Cancelled while the condition waited for an expression host: the run unwinds, the step does not fail.
          throwIfAborted(scope.signal);
          return this.failNew(step, path, expressionFailure(step.name, err));
        }
        if (!go) {
          this.record(path, newState(step, "SKIPPED", Date.now()));
          this.committer.emit("step_skipped", path, { status: "SKIPPED", reason: "condition" });
          return { kind: "skipped" };
        }
      }
      if (this.debug) {
        const verdict = await this.debug.before(step, path, scope);
        if (verdict.kind === "park" || verdict.kind === "skip")
          return this.byDebugger(step, path, null, scope, verdict);
      }
      st = this.record(path, newState(step, step.manual_approval ? "AWAITING_APPROVAL" : "RUNNING", Date.now()));
    }
    if (st.status === "AWAITING_APPROVAL") {
      const gate = await this.awaitApproval(step, path, st, scope);
      if (gate) return gate;
    }
    return this.attempts(step, path, st, st.approved ? { ...scope, approval: st.approved } : scope);
  }

  /**
   * The `manual_approval` gate: the approval's id is recorded before its record is written, so
   * a crash in between writes the same record again. Returns null once approved (the step then
   * runs with the approved rows), else what the step comes to: parked while pending, failed
   * (and what follows skipped) when rejected or expired.
   */
  private async awaitApproval(step: Step, path: string, st: StepState, scope: Scope): Promise<Outcome | null> {
    const spec = step.manual_approval!;
    if (st.approvalId === null) {
      st.approvalId = newId();
      // Written even when nothing else changed since the last write (an outside step's result written at once). The
      // execution's status stays RUNNING in it: it says AWAITING_APPROVAL only once the approval is there to find.
      this.committer.touch();
      await this.committer.flush();
    }
    let record = await this.effects.loadApproval(st.approvalId);
    // Found pending on a replay: its writer may have died after the record and before its list
    // entries or its expiry timer. Opening it again writes those and changes nothing else.
    if (record?.status === "PENDING") await this.effects.openApproval(record);
    if (!record) {
      let built;
      try {
        const [message, ...items] = await Promise.all([
          this.render(spec.message, scope),
          ...(spec.groups ?? []).map((g) => (typeof g.items === "string" ? this.render(g.items, scope) : g.items)),
        ]);
        built = approvalRecord(this.snap, st.approvalId, path, spec, { message, items }, Date.now());
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        return this.finishFailed(path, st, expressionFailure(step.name, err));
      }
      if (typeof built === "string") return this.finishFailed(path, st, `step \`${step.name}\`: ${built}`);
      // The reviewer's edited rows are kept in the same record, so the rows may take half of it.
      const bytes = jsonBytes(built);
      if (bytes > this.committer.limits.recordBytes / 2) {
        const error = `its approval (message and rows, ${bytes} bytes) is over half the NATS server's max_payload of ${this.committer.limits.recordBytes} bytes; show the reviewer fewer or smaller rows`;
        return this.finishFailed(path, st, `step \`${step.name}\`: ${error}`);
      }
      record = built;
      // Replayed after a crash before the approval was put, the step wrote nothing first: a result of an outside step
      // left to it (a foreach item's last) is written before the approval is. (Found pending, it is put again as it
      // was, an act already made: the park's write that follows carries that result.)
      await this.committer.writeOwed();
      await this.effects.openApproval(record);
      this.committer.emit("step_awaiting_approval", path, {
        status: st.status,
        approvalId: record.id,
        message: record.approvalMessage,
        expiresAt: record.expiresAt,
      });
    }
    const now = Date.now();
    switch (record.status) {
      case "PENDING":
        return { kind: "parked" };
      case "CANCELLED":
        throw new CancelledError();
      case "APPROVED": {
        if (this.snap.status === "AWAITING_APPROVAL") this.snap.status = "RUNNING";
        st.approved = approvedRows(record);
        const refused = this.committer.budget.admit(path, st, "the approved rows");
        if (refused) return this.finishFailed(path, st, `step \`${step.name}\`: ${refused}`);
        st.status = "RUNNING";
        st.startedAt = now;
        this.committer.emit("step_approved", path, {
          approvalId: record.id,
          decidedBy: record.decidedBy,
          comment: record.comment,
        });
        return null;
      }
      default: {
        if (this.snap.status === "AWAITING_APPROVAL") this.snap.status = "RUNNING";
        return { kind: "failed", error: this.closeGate(path, st, record, record.status, now), gateClosed: true };
      }
    }
  }

  /** The gated step takes the approval's rejection or expiry as its end; returns its error. */
  private closeGate(
    path: string,
    st: StepState,
    record: ApprovalRecord,
    status: "REJECTED" | "EXPIRED",
    now: number,
  ): string {
    const error = this.committer.budget.error(closedGateError(record));
    st.error = error;
    this.setStatus(st, status, now);
    this.committer.budget.account(path, st);
    this.committer.emit(status === "EXPIRED" ? "step_expired" : "step_rejected", path, {
      status,
      approvalId: record.id,
      error,
    });
    return error;
  }

  /** The attempt loop: runs, and on a retryable failure backs off on a durable timer. */
  private async attempts(step: Step, path: string, st: StepState, scope: Scope): Promise<Outcome> {
    // Replaying a step whose attempt had begun (a parked wait, a child, or an attempt in flight
    // when its actor died) continues that attempt under the same number.
    let continuing = st.attempts > 0 && st.retryAt === null;
    // A backoff begun just now (backOff), its change not written yet: by the park's write where it parks the run.
    let begun: ((parks: boolean) => Promise<void>) | undefined;
    for (;;) {
      if (st.retryAt !== null) {
        const due = await untilDue(this.effects, this.committer, path, st.retryAt, scope.signal, begun);
        begun = undefined;
        if (due === "parked") return { kind: "parked" };
        if (this.debug) {
          const verdict = await this.debug.retry(path, st, scope);
          if (verdict.kind === "park" || verdict.kind === "skip")
            return this.byDebugger(step, path, st, scope, verdict);
        }
        st.retryAt = null;
      }
      // A debugger's pause stops the clock: a deadline that passed while paused does not fail the step.
      if (st.deadline !== null && Date.now() >= st.deadline && !this.debug?.pausedStep) {
        const reason = `step \`${step.name}\` timed out after ${step.timeout} s`;
        await this.cancelRunningUnder(step, path, scope, reason);
        this.debug?.attemptEnded(step, path, scope);
        return this.finishFailed(path, st, reason);
      }
      // An on_error pause holds its failure: the attempt is not run again.
      const held = continuing ? (this.debug?.heldFailure(path, st.attempts) ?? null) : null;
      // An outside step's result left to what runs next (oweWrite) is written before a step whose attempt writes
      // nothing first (carriesOwedWrite). Asked first whether one is owed: this runs before every attempt of every
      // step.
      if (this.committer.owes && !carriesOwedWrite(step)) await this.committer.writeOwed();
      if (!continuing) this.startAttempt(step, path, st, scope);
      continuing = false;
      const r: Attempt = held ? { kind: "failed", ...held } : await this.attempt(step, path, st, scope);
      throwIfAborted(scope.signal);
      if (r.kind === "parked") {
        // A parked step with a timeout must wake at its deadline to fail, even if nothing else wakes it: its timer is
        // armed at the step's first park at that deadline (recorded by the park's write, after it) and again only
        // when it woke the run early, not at every park of a run replayed for other reasons (see untilDue). Not while
        // a debugger's pause stops the clock past it: a timer due already fired at once, woke the run, found the pause
        // and was armed again, several times a second for as long as the pause lasted. The resume moves the deadline
        // on, and the run it wakes arms that. A result of an outside step left to what follows (a container's last
        // item's or branch's) is written first, as before a wait's timer: left to the park's write, a crash between the
        // two would find that step in flight after it ended.
        const stopped = (this.debug?.pausedStep ?? null) !== null && st.deadline !== null && st.deadline <= Date.now();
        if (st.deadline !== null && !stopped && (st.deadlineArmed !== st.deadline || this.effects.wokenFor === path)) {
          await this.committer.writeOwed();
          await this.effects.scheduleWake(path, st.deadline);
          st.deadlineArmed = st.deadline;
        }
        return r;
      }
      if (r.kind === "completed") {
        const done = this.finishCompleted(step, path, st, scope, r.output);
        if (this.debug && done.kind === "completed" && (await this.debug.after(path, st, scope)).kind === "park")
          return { kind: "parked" };
        return done;
      }
      if (this.debug) {
        this.debug.attemptEnded(step, path, scope);
        const verdict = await this.debug.error(path, st, scope, { ...r, retryable: retriesAfter(step, st, r) });
        if (verdict.kind === "retry") continue;
        if (verdict.kind === "park" || verdict.kind === "skip") return this.byDebugger(step, path, st, scope, verdict);
      }
      // A container's failure ends what its other branches or items still wait on (a wait, a backoff, a child
      // execution): nothing under a failed or retried step stays RUNNING.
      await this.cancelRunningUnder(step, path, scope, r.error);
      if (!(await this.backOff(step, path, st, r))) return this.finishFailed(path, st, r.error);
      begun = writeBegunWait(this.committer, this.workflow, step);
    }
  }

  /**
   * What a debugger's verdict makes of a step: parked at a pause, or ended by `skip` (SKIPPED,
   * or COMPLETED with the output given) without running (further). `st`: null before it started.
   */
  private byDebugger(
    step: Step,
    path: string,
    st: StepState | null,
    scope: Scope,
    verdict: Extract<Verdict, { kind: "park" } | { kind: "skip" }>,
  ): Outcome {
    if (verdict.kind === "park") return { kind: "parked" };
    const now = Date.now();
    const state = st ?? this.record(path, newState(step, "RUNNING", now));
    state.retryAt = null;
    state.byDebugger = true;
    this.debug?.failureHandled(path, state.attempts);
    if (verdict.output) return this.finishCompleted(step, path, state, scope, verdict.output.value);
    this.setStatus(state, "SKIPPED", now);
    this.committer.budget.account(path, state);
    this.committer.emit("step_skipped", path, { status: state.status, reason: "debugger" });
    return { kind: "skipped" };
  }

  private startAttempt(step: Step, path: string, st: StepState, scope: Scope): void {
    // On_error's `retry`: the failure it held is let go as its new attempt is recorded.
    this.debug?.failureHandled(path, st.attempts);
    st.attempts += 1;
    if (step.timeout !== undefined && keepsDeadline(step)) st.deadline = Date.now() + step.timeout * 1000;
    // A container's new attempt runs its steps afresh; a debugger's pauses inside the last one may come again.
    if (st.attempts > 1) {
      this.clearNested(step, path, scope);
      this.debug?.attemptStarted(step, path, scope);
    }
    this.snap.currentStep = path;
    this.committer.emit("step_started", path, { attempt: st.attempts });
  }

  /** One attempt, run by the step's kind and stopped at the step's deadline. */
  private async attempt(step: Step, path: string, st: StepState, scope: Scope): Promise<Attempt> {
    try {
      const input = this.debug?.inputFor(path);
      return await this.withTimeout(step, path, scope, (s) =>
        stepKind(step).run(this.ctx, step, { path, state: st, scope: s, ...(input ? { input } : {}) }),
      );
    } catch (err) {
      if (err instanceof ExpressionError)
        return { kind: "failed", error: expressionFailure(step.name, err), retryable: false };
      if (err instanceof StepTimeoutError && err.path === path)
        return { kind: "failed", error: err.message, retryable: true, timedOut: true };
      throw err;
    }
  }

  private finishCompleted(step: Step, path: string, st: StepState, scope: Scope, output: unknown): Outcome {
    const kept = this.committer.budget.output(output);
    st.output = kept.value;
    this.setStatus(st, "COMPLETED", Date.now());
    const refused = this.committer.budget.admit(path, st, "its result", kept.bytes);
    if (refused) return this.finishFailed(path, st, `step \`${step.name}\`: ${refused}`);
    // totalSteps counts the workflow's own list: a parallel's branch steps run at its prefix too.
    if (scope.prefix === "" && this.workflow.steps.includes(step)) this.snap.completedSteps += 1;
    this.committer.emit(
      "step_completed",
      path,
      { status: st.status, output: st.output, duration: st.duration, attempts: st.attempts },
      { output: kept.bytes },
    );
    return { kind: "completed", output: st.output };
  }

  /**
   * Sets the next attempt's time when the step's `retry` allows one more, its timer armed before it is recorded: by the
   * park's write where the backoff parks the run, else by its own (writeBegunWait). Says whether it did. Recorded by
   * the park alone, the failed attempt is still written by the first write after it, with nothing run in between, as
   * its own write was: a crash before it finds the attempt in flight as a crash a moment earlier would.
   */
  private async backOff(
    step: Step,
    path: string,
    st: StepState,
    failed: Extract<Attempt, { kind: "failed" }>,
  ): Promise<boolean> {
    if (!retriesAfter(step, st, failed)) return false;
    const retryAt = Date.now() + backoffMs(step.retry!, st.attempts);
    // A container's last item's or branch's result from outside left to what follows it is written before the timer.
    await this.committer.writeOwed();
    await this.effects.scheduleWake(path, retryAt);
    st.retryAt = retryAt;
    this.debug?.failureHandled(path, st.attempts);
    st.error = this.committer.budget.error(failed.error);
    this.committer.budget.account(path, st);
    this.committer.emit("step_retrying", path, { attempt: st.attempts, error: st.error, retryAt: st.retryAt });
    return true;
  }

  /** Runs a step body, stopping it at its deadline (a step whose kind times itself has none). */
  private async withTimeout(
    step: Step,
    path: string,
    scope: Scope,
    body: (scope: Scope) => Promise<Attempt>,
  ): Promise<Attempt> {
    const deadline = this.snap.steps[path]?.deadline ?? null;
    if (step.timeout === undefined || deadline === null) return body(scope);
    const inner = new AbortController();
    const signal = AbortSignal.any([scope.signal, inner.signal]);
    // Armed while a debugger's pause stands, the step is replayed where it waited (nothing runs while paused): its time
    // stopped with the pause, and the resume moves its deadline on. Armed before, the step runs beside the pause, holds
    // real resources, and times out as it would, unless the pause came inside it: then its time stops too.
    const running = !this.debug?.pausedStep;
    const timer = setTimeout(
      () => {
        if (running && !this.debug?.holdsPause(step, path, scope))
          inner.abort(new StepTimeoutError(path, step.timeout!));
      },
      Math.max(0, deadline - Date.now()),
    );
    try {
      return await body({ ...scope, signal });
    } catch (err) {
      if (err instanceof StepTimeoutError && err.path === path)
        await this.cancelRunningUnder(step, path, scope, err.message);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async cancelRunningUnder(step: Step, path: string, scope: Scope, reason: string): Promise<void> {
    const running = nestedPaths(this.snap, step, path, scope.prefix).filter(
      (p) => this.snap.steps[p]!.status === "RUNNING",
    );
    // A child's cancel is an act outside, as a timer is: a result of an outside step left to what follows (a branch's
    // or an item's last) is written before it, the steps still RUNNING. Left to the next write, a crash between the two
    // would find that step in flight after it ended.
    if (running.some((p) => this.snap.steps[p]!.childExecutionId !== null)) await this.committer.writeOwed();
    const now = Date.now();
    for (const nestedPath of running) {
      const st = this.snap.steps[nestedPath]!;
      st.error = reason;
      this.setStatus(st, "CANCELLED", now);
      if (st.childExecutionId) this.effects.cancelChild(st.childExecutionId);
      this.committer.emit("step_cancelled", nestedPath, { status: st.status, error: reason });
    }
  }

  private clearNested(step: Step, path: string, scope: Scope): void {
    for (const nestedPath of nestedPaths(this.snap, step, path, scope.prefix)) {
      delete this.snap.steps[nestedPath];
      this.committer.budget.forget(nestedPath);
    }
  }

  private render(value: unknown, scope: Scope): Promise<unknown> {
    return renderTemplate(value, expressionContext(this.snap, this.names, scope), this.snap.ownerId, scope.signal);
  }

  private failNew(step: Step, path: string, error: string): Outcome {
    return this.finishFailed(path, this.record(path, newState(step, "RUNNING", Date.now())), error);
  }

  /** A failed step keeps its error whatever the record's room; what else it kept gives way if need be. */
  private finishFailed(path: string, st: StepState, error: string): Outcome {
    st.error = this.committer.budget.error(error);
    st.retryAt = null;
    this.setStatus(st, "FAILED", Date.now());
    this.debug?.failureHandled(path, st.attempts);
    if (this.committer.budget.admitFailed(path, st)) {
      st.error = this.committer.budget.error(
        `${st.error} (what else it recorded was not kept: the execution's record is full)`,
      );
      this.committer.budget.account(path, st);
    }
    this.committer.emit("step_failed", path, {
      status: st.status,
      error: st.error,
      attempts: st.attempts,
      duration: st.duration,
    });
    return { kind: "failed", error: st.error };
  }

  /** A new step state, in the snapshot and in its size accounting. */
  private record(path: string, st: StepState): StepState {
    this.snap.steps[path] = st;
    this.committer.budget.account(path, st);
    // With the state, in one change: a boundary whose hits were counted is past.
    this.debug?.stepRecorded(path);
    return st;
  }

  private setStatus(st: StepState, status: StepStatus, now: number): void {
    st.status = status;
    st.completedAt = now;
    st.duration = st.startedAt === null ? null : now - st.startedAt;
  }
}

function newState(step: Step, status: StepStatus, now: number): StepState {
  return {
    name: step.name,
    type: step.type,
    status,
    error: null,
    attempts: 0,
    startedAt: status === "SKIPPED" ? null : now,
    completedAt: status === "SKIPPED" ? now : null,
    duration: null,
    waitUntil: null,
    retryAt: null,
    deadline: null,
    childExecutionId: null,
    approvalId: null,
  };
}

/** Whether the step's `retry` tries a failure of its attempt `st.attempts` again. */
function retriesAfter(step: Step, st: StepState, failed: { retryable: boolean }): boolean {
  return failed.retryable && step.retry !== undefined && st.attempts < step.retry.max_attempts;
}

/**
 * Whether a step's `timeout` is a deadline recorded as each attempt starts, enforced while it
 * runs, on waking from a park and on a replay: needed by a step that may park or that acts
 * outside the service (unless its kind stops itself at its timeout). A transform needs none: its
 * templates are each bounded by the expressions' own deadline.
 */
function keepsDeadline(step: Step): boolean {
  const type = STEP_TYPE_TABLE[step.type];
  return type.parks || (type.externalEffects && !stepKind(step).timesItself);
}

function expressionFailure(stepName: string, err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return `step \`${stepName}\`: ${msg}`;
}
