import { ExpressionError, evaluateCondition, renderTemplate } from "@wf/shared/expressions";
import { newId, TERMINAL_STATUSES, type ExecutionSnapshot, type StepState, type StepStatus } from "@wf/shared/execution";
import type { ApprovalRecord } from "@wf/shared/store";
import type { Step, Workflow } from "@wf/shared/workflow";
import { walkSteps } from "@wf/shared/workflow";
import { runAiStep } from "./ai-steps";
import { approvalRecord, approvedRows, closedGateError } from "./approval-gate";
import { backoffMs } from "./backoff";
import type { Committer } from "./committer";
import type { RunEffects } from "./effects";
import { LogBatcher } from "./log-batcher";
import { jsonBytes } from "./result-limits";
import { expressionContext, iterationScope, rootScope, type Scope } from "./scope";
import { CancelledError, LostOwnershipError, sleep } from "./signals";

type Outcome =
  | { kind: "completed"; output: unknown }
  | { kind: "skipped" }
  /** `gateClosed`: an approval was rejected or expired, so what follows it is skipped. */
  | { kind: "failed"; error: string; gateClosed?: true }
  | { kind: "parked" };

type Attempt =
  | { kind: "completed"; output: unknown }
  | { kind: "failed"; error: string; retryable: boolean }
  | { kind: "parked" };

/** A container step ran out of its `timeout`: its children are stopped with this reason. */
class StepTimeoutError extends Error {
  constructor(readonly path: string, seconds: number) {
    super(`step \`${path}\` timed out after ${seconds} s`);
  }
}

const DONE: ReadonlySet<StepStatus> = new Set(["COMPLETED", "SKIPPED"]);
const CLOSED_GATE: ReadonlySet<StepStatus> = new Set(["REJECTED", "EXPIRED"]);
const CODE_DEFAULT_TIMEOUT_S = 30;

/**
 * The orchestration of one execution: walks the workflow, replaying what the snapshot already
 * records (finished steps are not run again), and runs the rest through `RunEffects`. Every
 * decision is taken from the snapshot, so a run resumed on another replica after a park or a
 * crash takes the same path. It returns "parked" when all that is left waits on a durable
 * timer or a child execution: the caller then drops it from memory.
 */
export class ExecutionRun {
  private readonly names: string[] = [];
  private readonly abort = new AbortController();

  constructor(
    private readonly c: Committer,
    private readonly wf: Workflow,
    private readonly fx: RunEffects,
  ) {
    walkSteps(wf.steps, (step) => {
      this.names.push(step.name);
    });
  }

  private get snap(): ExecutionSnapshot {
    return this.c.snap;
  }

  cancel(): void {
    this.abort.abort(new CancelledError());
  }

  async run(): Promise<"terminal" | "parked"> {
    let outcome: Outcome;
    try {
      if (this.snap.cancelRequested) throw new CancelledError();
      outcome = await this.runSequence(this.wf.steps, rootScope(this.abort.signal, this.fx.secrets));
      if (this.snap.cancelRequested) throw new CancelledError();
    } catch (err) {
      if (err instanceof LostOwnershipError) throw err;
      if (err instanceof CancelledError) {
        await this.finishCancelled();
        return "terminal";
      }
      throw err;
    }
    const s = this.snap;
    const now = Date.now();
    if (outcome.kind === "parked") {
      s.currentStep = null;
      const awaiting = Object.values(s.steps).some((st) => st.status === "AWAITING_APPROVAL");
      if (awaiting) s.status = "AWAITING_APPROVAL";
      this.c.emit("exec_parked", undefined, { status: s.status, waitingOn: this.parkedOn() });
      return "parked";
    }
    // A parallel branch may still wait on an approval when another branch ends the run.
    await this.closeOpenGates(now, "execution ended");
    s.completedAt = now;
    s.currentStep = null;
    const duration = now - (s.startedAt ?? now);
    if (outcome.kind === "failed") {
      const closedGate = Object.values(s.steps).find((st) => CLOSED_GATE.has(st.status));
      if (closedGate) this.skipUnreached(this.wf.steps, "");
      s.status = "FAILED";
      s.error = this.c.budget.error(closedGate?.error ?? outcome.error);
      this.c.emit("exec_failed", undefined, { status: s.status, error: s.error, duration });
    } else {
      s.status = "COMPLETED";
      s.output = outcome.kind === "completed" ? outcome.output : null;
      this.c.emit("exec_completed", undefined, { status: s.status, output: s.output, duration });
    }
    return "terminal";
  }

  /** Marks what was running or awaiting approval as CANCELLED; steps not reached stay absent. */
  async finishCancelled(): Promise<void> {
    const s = this.snap;
    const now = Date.now();
    await this.closeOpenGates(now, "execution cancelled");
    for (const [path, st] of Object.entries(s.steps)) {
      if (st.status !== "RUNNING" && st.status !== "PENDING") continue;
      this.setStatus(st, "CANCELLED", now);
      if (st.childExecutionId) this.fx.cancelChild(st.childExecutionId);
      this.c.emit("step_cancelled", path, { status: st.status });
    }
    s.status = "CANCELLED";
    s.error = "execution cancelled";
    s.completedAt = now;
    s.currentStep = null;
    this.c.emit("exec_cancelled", undefined, { status: s.status });
  }

  /**
   * Steps still awaiting an approval when the run ends: their approvals are cancelled by
   * compare-and-set, racing any decision. A step whose approval was rejected or expired first
   * (its resume had not run yet) shows that decision; the others become CANCELLED.
   */
  private async closeOpenGates(now: number, reason: string): Promise<void> {
    for (const [path, st] of Object.entries(this.snap.steps)) {
      if (st.status !== "AWAITING_APPROVAL") continue;
      const record = st.approvalId === null ? null : await this.fx.cancelApproval(st.approvalId, reason);
      if (record && (record.status === "REJECTED" || record.status === "EXPIRED")) {
        this.closeGate(path, st, record, record.status, now);
        continue;
      }
      this.setStatus(st, "CANCELLED", now);
      this.c.emit("step_cancelled", path, { status: st.status, approvalId: st.approvalId });
    }
  }

  /** Steps of a sequence never reached because an approval closed the path: SKIPPED. */
  private skipUnreached(steps: readonly Step[], prefix: string): void {
    const now = Date.now();
    for (const step of steps) {
      const path = prefix + step.name;
      if (this.snap.steps[path]) continue;
      this.record(path, newState(step, "SKIPPED", now));
      this.c.emit("step_skipped", path, { status: "SKIPPED", reason: "approval" });
    }
  }

  private parkedOn(): string[] {
    return Object.entries(this.snap.steps)
      .filter(
        ([, st]) =>
          st.status === "AWAITING_APPROVAL" || (st.status === "RUNNING" && (st.waitUntil || st.retryAt || st.childExecutionId)),
      )
      .map(([path]) => path);
  }

  private async runSequence(steps: readonly Step[], scope: Scope): Promise<Outcome> {
    let last: Outcome = { kind: "skipped" };
    for (const [i, step] of steps.entries()) {
      const r = await this.runStep(step, scope);
      if (this.c.outboxFull) await this.c.flush();
      if (r.kind === "failed" && r.gateClosed) this.skipUnreached(steps.slice(i + 1), scope.prefix);
      if (r.kind === "failed" || r.kind === "parked") return r;
      if (r.kind === "completed") last = r;
    }
    return last;
  }

  private async runStep(step: Step, scope: Scope): Promise<Outcome> {
    const path = scope.prefix + step.name;
    let st = this.snap.steps[path];
    if (st && DONE.has(st.status)) {
      return st.status === "SKIPPED" ? { kind: "skipped" } : { kind: "completed", output: st.output };
    }
    if (st && st.status === "FAILED") return { kind: "failed", error: st.error ?? "failed" };
    if (st && CLOSED_GATE.has(st.status)) return { kind: "failed", error: st.error ?? "approval closed", gateClosed: true };
    throwIfAborted(scope.signal);

    if (!st) {
      if (step.condition !== undefined) {
        let go: boolean;
        try {
          go = await evaluateCondition(step.condition, expressionContext(this.snap, this.names, scope));
        } catch (err) {
          return this.failNew(step, path, expressionFailure(step.name, err));
        }
        if (!go) {
          this.record(path, newState(step, "SKIPPED", Date.now()));
          this.c.emit("step_skipped", path, { status: "SKIPPED", reason: "condition" });
          return { kind: "skipped" };
        }
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
      await this.c.flush();
    }
    let record = await this.fx.loadApproval(st.approvalId);
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
        return this.finishFailed(step, path, st, expressionFailure(step.name, err));
      }
      if (typeof built === "string") return this.finishFailed(step, path, st, `step \`${step.name}\`: ${built}`);
      // The reviewer's edited rows are kept in the same record, so the rows may take half of it.
      const bytes = jsonBytes(built);
      if (bytes > this.c.limits.recordBytes / 2) {
        const error = `its approval (message and rows, ${bytes} bytes) is over half the NATS server's max_payload of ${this.c.limits.recordBytes} bytes; show the reviewer fewer or smaller rows`;
        return this.finishFailed(step, path, st, `step \`${step.name}\`: ${error}`);
      }
      record = built;
      await this.fx.openApproval(record);
      this.c.emit("step_awaiting_approval", path, {
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
        const refused = this.c.budget.admit(path, st, "the approved rows");
        if (refused) return this.finishFailed(step, path, st, `step \`${step.name}\`: ${refused}`);
        st.status = "RUNNING";
        st.startedAt = now;
        this.c.emit("step_approved", path, { approvalId: record.id, decidedBy: record.decidedBy, comment: record.comment });
        return null;
      }
      default: {
        if (this.snap.status === "AWAITING_APPROVAL") this.snap.status = "RUNNING";
        return { kind: "failed", error: this.closeGate(path, st, record, record.status, now), gateClosed: true };
      }
    }
  }

  /** The gated step takes the approval's rejection or expiry as its end; returns its error. */
  private closeGate(path: string, st: StepState, record: ApprovalRecord, status: "REJECTED" | "EXPIRED", now: number): string {
    const error = this.c.budget.error(closedGateError(record));
    st.error = error;
    this.setStatus(st, status, now);
    this.c.budget.account(path, st);
    this.c.emit(status === "EXPIRED" ? "step_expired" : "step_rejected", path, { status, approvalId: record.id, error });
    return error;
  }

  /** The attempt loop: runs, and on a retryable failure backs off on a durable timer. */
  private async attempts(step: Step, path: string, st: StepState, scope: Scope): Promise<Outcome> {
    // Replaying a step whose attempt had begun (a parked wait, a child, or an attempt in flight
    // when its actor died) continues that attempt under the same number.
    let continuing = st.attempts > 0 && st.retryAt === null;
    for (;;) {
      if (st.retryAt !== null) {
        const due = await this.untilDue(path, st.retryAt, scope.signal);
        if (due === "parked") return { kind: "parked" };
        st.retryAt = null;
      }
      if (st.deadline !== null && Date.now() >= st.deadline) {
        const reason = `step \`${step.name}\` timed out after ${step.timeout} s`;
        this.cancelRunningUnder(step, path, scope, reason);
        return this.finishFailed(step, path, st, reason);
      }
      if (!continuing) {
        st.attempts += 1;
        if (step.timeout !== undefined && parks(step)) st.deadline = Date.now() + step.timeout * 1000;
        // A container's new attempt runs its steps afresh.
        if (st.attempts > 1) this.clearNested(step, path, scope);
        this.snap.currentStep = path;
        this.c.emit("step_started", path, { attempt: st.attempts });
      }
      continuing = false;
      let r: Attempt;
      try {
        r = await this.withTimeout(step, path, scope, (s) => this.execute(step, path, st, s));
      } catch (err) {
        if (err instanceof StepTimeoutError && err.path === path) r = { kind: "failed", error: err.message, retryable: true };
        else throw err;
      }
      throwIfAborted(scope.signal);
      if (r.kind === "parked") {
        // A parked step with a timeout must wake at its deadline to fail, even if nothing else wakes it.
        if (st.deadline !== null) await this.fx.scheduleWake(path, st.deadline);
        return r;
      }
      if (r.kind === "completed") {
        st.output = this.c.budget.output(r.output);
        this.setStatus(st, "COMPLETED", Date.now());
        const refused = this.c.budget.admit(path, st, "its result");
        if (refused) return this.finishFailed(step, path, st, `step \`${step.name}\`: ${refused}`);
        if (scope.prefix === "") this.snap.completedSteps += 1;
        this.c.emit("step_completed", path, {
          status: st.status,
          output: st.output,
          duration: st.duration,
          attempts: st.attempts,
        });
        return { kind: "completed", output: st.output };
      }
      const retry = step.retry;
      if (r.retryable && retry && st.attempts < retry.max_attempts) {
        st.retryAt = Date.now() + backoffMs(retry, st.attempts);
        st.error = this.c.budget.error(r.error);
        this.c.budget.account(path, st);
        this.c.emit("step_retrying", path, { attempt: st.attempts, error: st.error, retryAt: st.retryAt });
        await this.c.flush();
        await this.fx.scheduleWake(path, st.retryAt);
        continue;
      }
      return this.finishFailed(step, path, st, r.error);
    }
  }

  /** Runs a step body, stopping it at its `timeout` (code steps enforce theirs in the runner). */
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
    const timer = setTimeout(() => inner.abort(new StepTimeoutError(path, step.timeout!)), Math.max(0, deadline - Date.now()));
    try {
      return await body({ ...scope, signal });
    } catch (err) {
      if (err instanceof StepTimeoutError && err.path === path) this.cancelRunningUnder(step, path, scope, err.message);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private cancelRunningUnder(step: Step, path: string, scope: Scope, reason: string): void {
    const now = Date.now();
    for (const nestedPath of this.nestedPaths(step, path, scope)) {
      const st = this.snap.steps[nestedPath]!;
      if (st.status !== "RUNNING") continue;
      st.error = reason;
      this.setStatus(st, "CANCELLED", now);
      if (st.childExecutionId) this.fx.cancelChild(st.childExecutionId);
      this.c.emit("step_cancelled", nestedPath, { status: st.status, error: reason });
    }
  }

  private clearNested(step: Step, path: string, scope: Scope): void {
    for (const nestedPath of this.nestedPaths(step, path, scope)) {
      delete this.snap.steps[nestedPath];
      this.c.budget.forget(nestedPath);
    }
  }

  /**
   * Recorded paths of the steps inside a container: foreach iterations live under `path[i].`;
   * parallel branches' steps sit beside the container, under the same prefix, with their names.
   */
  private nestedPaths(step: Step, path: string, scope: Scope): string[] {
    if (step.type !== "foreach" && step.type !== "parallel") return [];
    const names = new Set<string>();
    walkSteps([step], (s) => {
      if (s !== step) names.add(s.name);
    });
    return Object.keys(this.snap.steps).filter((p) => {
      if (p.startsWith(`${path}[`)) return true;
      if (!p.startsWith(scope.prefix)) return false;
      const rest = p.slice(scope.prefix.length);
      const head = rest.split(/[.[]/)[0]!;
      return names.has(head) && (rest === head || rest.startsWith(`${head}[`));
    });
  }

  private async execute(step: Step, path: string, st: StepState, scope: Scope): Promise<Attempt> {
    try {
      switch (step.type) {
        case "transform":
          return { kind: "completed", output: await this.render(step.output, scope) };
        case "code":
          return await this.runCode(step, path, st, scope);
        case "wait":
          return await this.runWait(step, path, st, scope);
        case "foreach":
          return await this.runForeach(step, path, scope);
        case "parallel":
          return await this.runParallel(step, scope);
        case "workflow":
          return await this.runChild(step, path, st, scope);
        case "llm":
        case "agent":
          return await runAiStep({ c: this.c, fx: this.fx, wf: this.wf, render: (v, s) => this.render(v, s) }, step, path, st, scope);
      }
    } catch (err) {
      if (err instanceof ExpressionError) return { kind: "failed", error: expressionFailure(step.name, err), retryable: false };
      throw err;
    }
  }

  private render(value: unknown, scope: Scope): Promise<unknown> {
    return renderTemplate(value, expressionContext(this.snap, this.names, scope));
  }

  private async runCode(step: Extract<Step, { type: "code" }>, path: string, st: StepState, scope: Scope): Promise<Attempt> {
    const input = step.input === undefined ? {} : await this.render(step.input, scope);
    if (this.snap.enableMonitoring) {
      st.input = this.c.budget.input(input);
      this.c.budget.account(path, st);
    }
    // The attempt's start must be durable before its side effects begin.
    await this.c.flush();
    const live = this.snap.enableMonitoring ? this.liveLog(path, st.attempts) : undefined;
    const res = await this.fx.runCode(
      {
        language: step.language,
        ...(step.code === undefined ? {} : { code: step.code }),
        ...(step.command === undefined ? {} : { command: step.command }),
        vars: this.snap.vars,
        input,
        ...(scope.item === undefined ? {} : { item: scope.item }),
        timeoutMs: (step.timeout ?? CODE_DEFAULT_TIMEOUT_S) * 1000,
        network: step.network ?? false,
        owner: this.snap.ownerId,
      },
      scope.signal,
      live?.add,
    );
    live?.flush();
    throwIfAborted(scope.signal);
    if (this.snap.enableMonitoring && res.logs.length) st.logs = this.c.budget.logs([...(st.logs ?? []), ...res.logs].slice(-1000));
    // Each connection the step's egress proxy refused is an event, the first ones by name.
    for (const r of res.refused?.first ?? []) this.c.emit("step_egress_refused", path, { attempt: st.attempts, ...r, total: res.refused?.total });
    if (res.artifacts.length) {
      const saved = await this.fx.saveArtifacts(path, res.artifacts);
      st.artifacts = [...(st.artifacts ?? []), ...saved.map((a) => a.id)];
      this.c.emit("step_artifacts", path, {
        artifacts: saved.map((a) => ({ id: a.id, name: a.name, path: a.path, size: a.size, contentType: a.contentType })),
      });
    }
    if (res.ok) return { kind: "completed", output: res.output };
    return { kind: "failed", error: `step \`${step.name}\`: ${res.error}`, retryable: true };
  }

  /** Streams a running step's log lines as `step_log` events (monitoring only). */
  private liveLog(path: string, attempt: number): LogBatcher {
    let batch = 0;
    return new LogBatcher((lines) =>
      this.c.publishLive("step_log", path, `${this.snap.id}.log.${path}.${attempt}.${++batch}`, { attempt, lines }),
    );
  }

  private async runWait(step: Extract<Step, { type: "wait" }>, path: string, st: StepState, scope: Scope): Promise<Attempt> {
    if (st.waitUntil === null) {
      const until =
        step.seconds !== undefined ? Date.now() + step.seconds * 1000 : Date.parse(String(await this.render(step.until, scope)));
      if (Number.isNaN(until)) {
        return { kind: "failed", error: `step \`${step.name}\`: \`until\` is not an ISO-8601 time`, retryable: false };
      }
      st.waitUntil = until;
      this.c.emit("step_waiting", path, { until });
      await this.c.flush();
      await this.fx.scheduleWake(path, until);
    }
    const due = await this.untilDue(path, st.waitUntil, scope.signal);
    if (due === "parked") return { kind: "parked" };
    return { kind: "completed", output: { waitedUntil: st.waitUntil } };
  }

  /**
   * Short waits stay in memory (the durable timer is there too, should this process die);
   * longer ones park the branch. A parked branch re-arms its timer, so a wake that came early
   * (clock skew between hosts) is not the last one.
   */
  private async untilDue(path: string, dueAt: number, signal: AbortSignal): Promise<"due" | "parked"> {
    let remaining = dueAt - Date.now();
    if (remaining > this.fx.holdMs) {
      await this.fx.scheduleWake(path, dueAt);
      return "parked";
    }
    // Timers may fire a millisecond early: a wait never ends before its due time.
    while (remaining > 0) {
      await sleep(remaining, signal);
      remaining = dueAt - Date.now();
    }
    return "due";
  }

  private async runForeach(step: Extract<Step, { type: "foreach" }>, path: string, scope: Scope): Promise<Attempt> {
    const items = typeof step.items === "string" ? await this.render(step.items, scope) : step.items;
    if (!Array.isArray(items)) {
      return {
        kind: "failed",
        error: `step \`${step.name}\`: \`items\` must evaluate to an array, got ${items === null ? "null" : typeof items}`,
        retryable: false,
      };
    }
    const results: Outcome[] = new Array(items.length);
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (!failed && next < items.length) {
        const i = next++;
        const r = await this.runSequence(step.steps, iterationScope(scope, path, i, items[i], scope.signal));
        results[i] = r;
        if (r.kind === "failed") failed = true;
      }
    };
    const concurrency = Math.min(step.concurrency ?? 1, Math.max(items.length, 1));
    await Promise.all(Array.from({ length: concurrency }, worker));
    const firstFailure = results.findIndex((r) => r?.kind === "failed");
    if (firstFailure >= 0) {
      const r = results[firstFailure] as { error: string };
      return { kind: "failed", error: `step \`${step.name}\` item ${firstFailure}: ${r.error}`, retryable: true };
    }
    if (results.some((r) => r.kind === "parked")) return { kind: "parked" };
    return { kind: "completed", output: results.map((r) => (r.kind === "completed" ? r.output : null)) };
  }

  private async runParallel(step: Extract<Step, { type: "parallel" }>, scope: Scope): Promise<Attempt> {
    const branches = Object.entries(step.branches);
    const results = await Promise.all(branches.map(([, steps]) => this.runSequence(steps, scope)));
    const failedAt = results.findIndex((r) => r.kind === "failed");
    if (failedAt >= 0) {
      const r = results[failedAt] as { error: string };
      return { kind: "failed", error: `step \`${step.name}\` branch ${branches[failedAt]![0]}: ${r.error}`, retryable: true };
    }
    if (results.some((r) => r.kind === "parked")) return { kind: "parked" };
    const output: Record<string, unknown> = {};
    branches.forEach(([name], i) => {
      const r = results[i]!;
      output[name] = r.kind === "completed" ? r.output : null;
    });
    return { kind: "completed", output };
  }

  private async runChild(step: Extract<Step, { type: "workflow" }>, path: string, st: StepState, scope: Scope): Promise<Attempt> {
    if (st.childExecutionId === null) {
      st.childExecutionId = newId();
      this.c.emit("step_child", path, { childExecutionId: st.childExecutionId, workflowId: step.workflow });
      // Recorded before the start is published: a crash in between re-publishes the same child.
      await this.c.flush();
    }
    const child = await this.fx.loadExecution(st.childExecutionId);
    if (!child) {
      const inputs = step.inputs === undefined ? {} : await this.render(step.inputs, scope);
      const error = await this.fx.startChild(step.workflow, st.childExecutionId, path, inputs as Record<string, unknown>);
      if (error) {
        st.childExecutionId = null;
        return { kind: "failed", error: `step \`${step.name}\`: ${error}`, retryable: false };
      }
      return { kind: "parked" };
    }
    if (!TERMINAL_STATUSES.has(child.status)) return { kind: "parked" };
    if (child.status === "COMPLETED") return { kind: "completed", output: child.output ?? null };
    // A new attempt starts a new child execution.
    st.childExecutionId = null;
    return {
      kind: "failed",
      error: `step \`${step.name}\`: sub-workflow ${step.workflow} execution ${child.id} ended ${child.status}${child.error ? `: ${child.error}` : ""}`,
      retryable: true,
    };
  }

  private failNew(step: Step, path: string, error: string): Outcome {
    return this.finishFailed(step, path, this.record(path, newState(step, "RUNNING", Date.now())), error);
  }

  /** A failed step keeps its error whatever the record's room; what else it kept gives way if need be. */
  private finishFailed(_step: Step, path: string, st: StepState, error: string): Outcome {
    st.error = this.c.budget.error(error);
    st.retryAt = null;
    this.setStatus(st, "FAILED", Date.now());
    if (this.c.budget.admitFailed(path, st)) {
      st.error = this.c.budget.error(`${st.error} (what else it recorded was not kept: the execution's record is full)`);
      this.c.budget.account(path, st);
    }
    this.c.emit("step_failed", path, { status: st.status, error: st.error, attempts: st.attempts, duration: st.duration });
    return { kind: "failed", error: st.error };
  }

  /** A new step state, in the snapshot and in its size accounting. */
  private record(path: string, st: StepState): StepState {
    this.snap.steps[path] = st;
    this.c.budget.account(path, st);
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

/** Step types whose attempt has side effects outside the snapshot: the ones a crash interrupts. */
export function inFlightType(step: { type: string }): boolean {
  return step.type === "code" || step.type === "llm" || step.type === "agent";
}

/** Steps that may park: their `timeout` is a durable deadline rather than an in-memory timer. */
function parks(step: Step): boolean {
  return step.type !== "code" && step.type !== "transform";
}

function expressionFailure(stepName: string, err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return `step \`${stepName}\`: ${msg}`;
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}
