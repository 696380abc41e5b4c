import { createHash } from "node:crypto";
import type {
  Breakpoint,
  DebugRequest,
  DebugState,
  ExecutionSnapshot,
  PausePhase,
  ResumedFrom,
  StepState,
  Usage,
} from "@wf/shared/execution";
import { hitPauses, mayPauseAt, sameBreakpoint } from "@wf/shared/execution";
import {
  evaluateCondition,
  evaluateExpression,
  ExpressionError,
  keysRead,
  type ExpressionContext,
} from "@wf/shared/expressions";
import { stepNameOf, type Step, type Workflow } from "@wf/shared/workflow";
import type { RunCommitter } from "../committer";
import type { RunEffects } from "../effects";
import { nestedPathTest } from "../nested-paths";
import { cutValue, jsonBytes } from "../result-limits";
import { expressionContext, type Scope } from "../scope";
import { matchesPoint, stepDepths, type Point } from "./breakpoints";
import { CALLS, editedArguments, editedInput } from "./commands";
import { armIdleTimer, keptBytes, writePause, type PauseCause, type PauseDetails } from "./pause";

/** What the run does at a point after the debugger has looked at it. */
export type Verdict =
  /** Go on; `edited`: the value a `set` gave what the point is about (a tool call's arguments). */
  | { kind: "go"; edited?: { value: unknown } }
  /** Stop here: the execution is paused (here or elsewhere) and parks. */
  | { kind: "park" }
  /** The paused step does not run: it ends COMPLETED with `output`, or SKIPPED without one. */
  | { kind: "skip"; output?: { value: unknown } }
  /** on_error: run the failed step again now. */
  | { kind: "retry" };

const GO: Verdict = { kind: "go" };
const PARK: Verdict = { kind: "park" };

/**
 * Phases where a branch stops when another branch has paused the execution: nothing of the
 * step is under way there. Elsewhere (a step that completed or failed, a call inside an
 * attempt) the branch goes on to its next step boundary and stops there, unless a breakpoint
 * matches where it is (it waits its turn: debug.waiting) or it failed (held).
 */
const STOPS_FOR_OTHERS: ReadonlySet<PausePhase> = new Set(["before", "item", "retry"]);

/** Phases that come again with each attempt of their step: within it, or (a foreach's items) of what it runs. */
const INSIDE_AN_ATTEMPT: ReadonlySet<PausePhase> = new Set(["item", "tool_call", "llm_call"]);

/** A watch's value is kept this small in the snapshot (a hash decides whether it changed). */
const WATCH_VALUE_BYTES = 4 * 1024;
/** A waiting step's watch change, once the waiting points' share of the record is full, keeps values this small. */
const WATCH_SLIM_BYTES = 64;

type Watched = DebugState["watched"][string];

/** The tool a tool call asks for. */
type CalledTool = { server: string; tool: string };

interface Hit {
  cause: PauseCause;
  details: Partial<PauseDetails>;
}

/**
 * What the breakpoints make of a point, its hits not counted yet (count): those that hit there, with what each adds
 * to a pause's context, and before a step the `step` commands' boundary, which pauses there if none of them does.
 */
interface Evaluated {
  hits: { bp: Breakpoint; details: Partial<PauseDetails> }[];
  /** The enabled breakpoints judged, as they stood: those changed since are judged again (standing). */
  breakpoints: readonly Breakpoint[];
  boundary?: Hit | null;
}

/** What the debugger needs of the run it watches. */
export interface DebugHost {
  readonly committer: RunCommitter;
  readonly effects: RunEffects;
  readonly workflow: Workflow;
  /** The names of all the workflow's steps, for expressions' `steps.<name>`. */
  readonly names: readonly string[];
  /** What a step acts on, as its before_step pause shows it (its kind's `input`). */
  stepInput(step: Step, scope: Scope): Promise<unknown>;
}

/** The breakpoint a stepped-into child execution pauses at, before its first step. */
export const STEP_INTO_CHILD = "step_into";

/**
 * A debug run's breakpoints, at the points the run and its step kinds call. At each point: hold
 * while paused elsewhere; where a pause was resumed from this very point, do what its command
 * said, once; else evaluate the breakpoints and on a hit write the pause and stop. All of it is
 * read from and written to the snapshot, so a run resumed elsewhere decides the same
 * (docs/debugger.md#durability).
 */
export class Debugger {
  private readonly depths: Map<string, number>;
  /** The last point's decision in progress: the next one waits for it. */
  private deciding: Promise<unknown> = Promise.resolve();
  /**
   * This pass over the run (its replay, in memory): whether a point kept waiting for an earlier one's turn (a waiting
   * point's, or a listed one's for a boundary or a failure), and the waiting points it came to. A pass that kept one
   * waiting yet wrote no pause never came to the earlier ones (passAgain): those are `unreachable` for the run's next
   * pass, which holds no one back for them.
   */
  private deferred = false;
  private readonly reached = new Set<string>();
  private readonly unreachable = new Set<string>();
  /** The waiting points as the pass began: one gone from them since is judged, the run past it. */
  private waitingAtStart: Set<string>;

  constructor(private readonly host: DebugHost) {
    this.depths = stepDepths(host.workflow);
    this.waitingAtStart = new Set(this.d.waiting.map(waitingKey));
  }

  private get snap(): ExecutionSnapshot {
    return this.host.committer.snap;
  }

  private get d(): DebugState {
    return this.snap.debug!;
  }

  /** The step the execution waits at while paused, else null. */
  get pausedStep(): string | null {
    return this.d.pause?.stepPath ?? null;
  }

  /**
   * Whether the pause stands at the step at `path` or inside it: its time stops. A step running beside the pause (in
   * another branch) holds a runner and real resources, and keeps its own timeout.
   */
  holdsPause(step: Step, path: string, scope: Scope): boolean {
    const at = this.pausedStep;
    return at !== null && (at === path || nestedPathTest(step, path, scope.prefix)(at));
  }

  /**
   * Whether a pause stands, or comes in this pass over the run: a point waiting its turn keeps waiting for an earlier
   * one's, which pauses when the run comes to it. Either way the run is held as behind a pause.
   */
  get pausing(): boolean {
    return this.d.pause !== null || this.deferred;
  }

  /** Whether the execution is paused after the step at `path` completed. */
  pausedAfter(path: string): boolean {
    const pause = this.d.pause;
    return pause?.phase === "after" && pause.stepPath === path;
  }

  /** Whether the step at `path` completed while another branch was paused, and waits after it for its breakpoint. */
  waitsAfter(path: string): boolean {
    return this.d.waiting.some((w) => w.phase === "after" && w.stepPath === path);
  }

  /** Before a step starts (its condition passed): before_step, conditional, and the `step` commands' boundary. */
  before(step: Step, path: string, scope: Scope): Promise<Verdict> {
    const point: Point = { phase: "before", path, occurrence: 0 };
    return this.check(
      point,
      scope,
      async () => {
        await this.initWatches(scope);
        return { ...(await this.hits(point, scope)), boundary: this.stepBoundary(path) };
      },
      () => this.inputDetails(step, path, scope),
    );
  }

  /** After a step completed, before anything after it runs: after_step, watch. */
  after(path: string, st: StepState, scope: Scope): Promise<Verdict> {
    const point: Point = { phase: "after", path, occurrence: 0 };
    // Its attempt is over: no takeover runs its calls again.
    this.d.callsPassed = this.d.callsPassed.filter((c) => c.stepPath !== path);
    for (const r of this.d.resumed) if (r.stepPath === path) attemptOver(r);
    // Marked with the completion, before the decision's turn: a write between them (another branch's pause) must not
    // record the step completed and its breakpoint gone past, for a takeover to find. A watch may have changed.
    const watching = this.d.breakpoints.some((bp) => bp.type === "watch" && bp.enabled);
    if (watching) point.seen = expressionContext(this.snap, this.host.names, scope);
    if (watching || this.mayHit(point)) {
      const marked = this.waitingAt(point);
      // A replay before the point was judged (a crash after the mark was written): what the step saw, not what steps
      // of other branches that completed since give.
      if (marked?.unfinished && point.seen) point.seen = asSeen(point.seen, marked.unfinished);
      else if (!marked) this.markWaiting(point, point.seen && unfinishedIn(point.seen, this.watchedSteps()));
    }
    return this.check(
      point,
      scope,
      () => this.hits(point, scope),
      async () => ({ output: st.output ?? null }),
    );
  }

  /**
   * A step's attempt failed, before its retry or its failure is handled: on_error. `timedOut`: it ran out of its step's
   * timeout, which is handled at once even while another branch is paused (its retry, or the failure), not held.
   */
  error(
    path: string,
    st: StepState,
    scope: Scope,
    failure: { error: string; retryable: boolean; timedOut?: true },
  ): Promise<Verdict> {
    const point: Point = { phase: "error", path, occurrence: st.attempts };
    return this.check(
      point,
      scope,
      () => this.hits(point, scope),
      async () => ({ error: failure.error, attempt: st.attempts, retryable: failure.retryable }),
      undefined,
      failure.timedOut !== true,
    );
  }

  /**
   * The failure an on_error pause holds for attempt `attempt` of the step at `path`: a run that
   * replays the step while paused there, or resumed from there, takes it instead of running the
   * attempt again.
   */
  heldFailure(path: string, attempt: number): { error: string; retryable: boolean } | null {
    const point: Point = { phase: "error", path, occurrence: attempt };
    const pause = this.d.pause;
    if (pause && samePoint(pause, point))
      return { error: pause.context.error ?? "failed", retryable: pause.context.retryable ?? false };
    const held = this.heldAt(point);
    if (held) return { error: held.error, retryable: held.retryable };
    const r = this.resumedAt(point);
    if (r && !r.passed) return { error: r.error ?? "failed", retryable: r.retryable ?? false };
    return null;
  }

  /**
   * The failure of attempt `attempt` of the step at `path` is handled (its retry, skip or failure recorded, or its
   * pause set): held until now (in `held`, or by its resumed pause), it is let go in the same change, so that no write
   * finds it neither held nor handled, for a takeover to run the failed attempt again.
   */
  failureHandled(path: string, attempt: number): void {
    const point: Point = { phase: "error", path, occurrence: attempt };
    this.d.held = this.d.held.filter((h) => !heldHere(h, point));
    const r = this.resumedAt(point);
    if (r && !r.passed) markPassed(r);
  }

  /** After a retry's backoff, before its attempt starts: on_retry. */
  retry(path: string, st: StepState, scope: Scope): Promise<Verdict> {
    const point: Point = { phase: "retry", path, occurrence: st.attempts + 1 };
    return this.check(
      point,
      scope,
      () => this.hits(point, scope),
      async () => ({ attempt: st.attempts + 1, ...(st.error === null ? {} : { error: st.error }) }),
    );
  }

  /** Before an iteration of the foreach at `path` starts (`scope` is the iteration's): foreach_item. */
  item(path: string, index: number, scope: Scope): Promise<Verdict> {
    if (this.iterationStarted(path, index)) return Promise.resolve(GO);
    const point: Point = { phase: "item", path, occurrence: index };
    return this.check(
      point,
      scope,
      () => this.hits(point, scope),
      async () => ({ index }),
    );
  }

  /**
   * Before an agent calls a tool (its `occurrence`-th in this attempt): tool_call. `edited`: arguments set at the
   * pause.
   */
  toolCall(
    path: string,
    occurrence: number,
    scope: Scope,
    call: { server: string; tool: string; arguments: unknown },
    checkpoint: () => { attempt: number; state: unknown },
  ): Promise<Verdict> {
    const point: Point = { phase: "tool_call", path, occurrence, toolCall: call };
    // A call of another tool waiting here is one the attempt, run again (its conversation not kept), does not make:
    // this is a new call, whose hits count, and that one waits no more.
    this.d.waiting = this.d.waiting.filter((w) => !samePoint(w, point) || sameTool(w, point));
    if (this.mayHit(point) && !this.callPassed(point)) this.markWaiting(point);
    return this.check(
      point,
      scope,
      () => this.hits(point, scope),
      async () => ({ toolCall: call }),
      checkpoint,
    );
  }

  /** Before an LLM call (its `occurrence`-th in this attempt), expected to cost `estimate`: usage. */
  llmCall(
    path: string,
    occurrence: number,
    scope: Scope,
    request: unknown,
    estimate: Usage,
    checkpoint: () => { attempt: number; state: unknown },
  ): Promise<Verdict> {
    const point: Point = { phase: "llm_call", path, occurrence, usage: { totals: this.snap.usage, estimate } };
    if (this.mayHit(point) && !this.callPassed(point)) this.markWaiting(point);
    return this.check(
      point,
      scope,
      () => this.hits(point, scope),
      async () => ({ usage: { ...this.snap.usage }, input: request }),
      checkpoint,
    );
  }

  /**
   * Where the attempt `attempt` of an llm or agent step at `path` stood when it paused, if it is resuming from there.
   */
  conversation(path: string, attempt: number): unknown {
    const c = this.d.checkpoint;
    if (c && c.stepPath === path && c.attempt === attempt) return c.state;
    const at = (p: { stepPath: string; checkpoint?: { attempt: number } }) =>
      p.stepPath === path && p.checkpoint?.attempt === attempt;
    return (this.d.resumed.find(at) ?? this.d.waiting.find(at))?.checkpoint?.state;
  }

  /** The input a `set` gave the step at `path` at its before_step pause, if any. */
  inputFor(path: string): { value: unknown } | undefined {
    return editedInput(this.d, path);
  }

  /**
   * A new attempt of the step at `path` begins (its second or later): the points inside it (its
   * tool and LLM calls, a container's items and steps) are passed anew, so they may pause again.
   */
  attemptStarted(step: Step, path: string, scope: Scope): void {
    const inside = insideAttempt(step, path, scope);
    this.d.resumed = this.d.resumed.filter((r) => !inside(r));
    this.d.boundariesPassing = this.d.boundariesPassing.filter((b) => b.phase !== "retry" || b.stepPath !== path);
    this.attemptEnded(step, path, scope);
  }

  /**
   * An attempt of the step at `path` failed (a timeout too), whatever comes of it: the run never comes back to the
   * points inside it (its items, steps and calls end with it, and a new attempt passes them anew), so those waiting
   * their turn and the failures held there leave the lists now, with the write that records the failure, rather than
   * being listed behind the pause; what kept its calls' hits counted once (passCall) goes too.
   */
  attemptEnded(step: Step, path: string, scope: Scope): void {
    const inside = insideAttempt(step, path, scope);
    this.d.waiting = this.d.waiting.filter((w) => !inside(w));
    for (const r of this.d.resumed) if (inside(r)) attemptOver(r);
    this.d.held = this.d.held.filter((h) => !inside({ stepPath: h.stepPath, phase: "error" }));
    this.d.callsPassed = this.d.callsPassed.filter((c) => !inside(c));
    this.d.boundariesPassing = this.d.boundariesPassing.filter((b) => !inside(b));
  }

  /**
   * The step at `path` has a state recorded: the run is past the boundary before it, and the item it is the first
   * step of (see boundariesPassing).
   */
  stepRecorded(path: string): void {
    const passing = this.d.boundariesPassing;
    if (passing.length === 0) return;
    this.d.boundariesPassing = passing.filter((b) =>
      b.phase === "before"
        ? b.stepPath !== path
        : !(b.phase === "item" && path.startsWith(`${b.stepPath}[${b.occurrence}].`)),
    );
  }

  /**
   * The pass over the run ended parked: whether to pass over it again, now. So only when a point kept waiting for an
   * earlier one's turn and no pause came: the earlier one was judged and did not pause after all (its breakpoints
   * changed while it waited: one redefined counts its hit anew, and of tool_call ones left, one naming another tool
   * than its call's, which a point of an older record does not name), or the pass never came to it (a branch that could
   * not get there; one whose container's attempt ended left the list then). Those hold no one back in the next pass,
   * which pauses at the first the run comes to. Each such pass judges a waiting point or finds one unreachable: they
   * are few.
   */
  passAgain(): boolean {
    const again = this.deferred && this.d.pause === null && !this.host.effects.handingBack();
    if (again) {
      const before = this.unreachable.size;
      const current = this.d.waiting.map(waitingKey);
      for (const key of current) if (!this.reached.has(key)) this.unreachable.add(key);
      // None judged nor newly unreachable (which the rule above should not let happen): none holds another back.
      const judged = [...this.waitingAtStart].some((key) => !current.includes(key));
      if (this.unreachable.size === before && !judged) for (const key of current) this.unreachable.add(key);
    }
    this.deferred = false;
    this.reached.clear();
    this.waitingAtStart = new Set(this.d.waiting.map(waitingKey));
    return again;
  }

  /** The run ended (completed, failed, cancelled): a pause still recorded (another branch's) is over. */
  ended(): void {
    const d = this.d;
    d.pause = null;
    d.held = [];
    d.waiting = [];
    d.callsPassed = [];
    d.boundariesPassing = [];
    d.claimed = null;
    d.checkpoint = null;
    for (const r of d.resumed) attemptOver(r);
  }

  /**
   * One point at a time: evaluating breakpoints and writing a pause is one step, which no other branch's point sees
   * half done.
   */
  private check(
    point: Point,
    scope: Scope,
    evaluate: () => Promise<Evaluated>,
    details: () => Promise<Partial<PauseDetails>>,
    checkpoint?: () => { attempt: number; state: unknown },
    holdsFailure = true,
  ): Promise<Verdict> {
    const decided = this.deciding.then(() => this.decide(point, scope, evaluate, details, checkpoint, holdsFailure));
    this.deciding = decided.catch(() => undefined);
    return decided;
  }

  private async decide(
    point: Point,
    scope: Scope,
    evaluate: () => Promise<Evaluated>,
    details: () => Promise<Partial<PauseDetails>>,
    checkpoint: (() => { attempt: number; state: unknown }) | undefined,
    holdsFailure: boolean,
  ): Promise<Verdict> {
    const d = this.d;
    this.reached.add(waitingKey({ ...point, stepPath: point.path }));
    if (d.pause && samePoint(d.pause, point)) {
      // Back at its own pause (a wake while paused, a takeover): its idle timer may never have been armed.
      await armIdleTimer(this.snap, this.host.effects);
      return PARK;
    }
    // Paused elsewhere, or a pause to come at a point waiting before one kept waiting for it: a branch waits at a
    // boundary, a resumed one too (it comes back here).
    if (this.pausing && STOPS_FOR_OTHERS.has(point.phase)) return PARK;
    // Paused inside this very attempt, at a later point, which a replay while paused (a wait in another branch ending,
    // a timer) cannot take up where it stood (no conversation kept): the attempt waits at its first point for the
    // resume, rather than paying the model again for the calls before the paused one at every such replay.
    // So too for a point of the attempt waiting its turn, once its conversation was not kept.
    if (d.pause && INSIDE_AN_ATTEMPT.has(point.phase) && this.stoppedInAttempt(point)) return PARK;
    this.replaceCalls(point);
    const r = this.resumedAt(point);
    if (r) {
      this.judged(point);
      // A call went past in this attempt (a new one drops it: attemptStarted) comes again only in a takeover's run of
      // the attempt, which does as the command asked once more: the arguments set are the ones sent, a skip skips.
      return r.passed && !CALLS.has(point.phase) ? GO : this.pass(r, point);
    }
    // A call the attempt went past, its hits counted (and maybe written), before a takeover ran the attempt again.
    if (this.callPassed(point)) return GO;
    // A failure waits at its point for the pause to end, but a timeout: the step ran out of its time while the pause
    // stood, and fails (or retries) now, no on_error hitting for it. A point where a breakpoint matches waits its turn:
    // it is judged (its hit counted, its pause written) once the run comes back with no pause. Past any other point
    // nothing of the step is left to hold: it goes on.
    if (d.pause) {
      if (point.phase === "error") return holdsFailure ? this.hold(point, await details()) : GO;
      const waiting = this.waitingAt(point);
      if (waiting && (await this.waitsItsTurn(waiting, point, scope))) {
        this.keepCheckpoint(waiting, checkpoint);
        return PARK;
      }
      const counted = Object.keys(this.judged(point)?.hits ?? {}).length > 0;
      // No pause for this step's completion: what it changed the watches see is their value from here.
      if (point.phase === "after") await this.rememberWatches(this.seenAt(point, scope));
      // Before a call, the count and the point no longer waiting are written before the call is made: a takeover must
      // not find the step waiting before a call it may have made (not in flight), nor the hit uncounted.
      else if (counted) {
        this.passCall(point);
        await this.host.committer.flush();
      }
      return GO;
    }
    const waited = this.waitingAt(point);
    // No pause stands, but a point listed as waiting when the pass began still pauses and has not had its turn: it
    // pauses next (as the console listed it), so a point that would pause without being listed first (a boundary, a
    // failure) waits as behind a pause until the run comes to it, in this pass or the next (passAgain). A listed point
    // waits behind those before it (below). One marked in this pass is only in its decision, not listed behind a pause.
    if (!waited && (STOPS_FOR_OTHERS.has(point.phase) || (point.phase === "error" && holdsFailure)))
      this.deferred ||= this.d.waiting.some((w) => this.waitingAtStart.has(waitingKey(w)) && this.stillPauses(w));
    if (this.deferred && STOPS_FOR_OTHERS.has(point.phase)) return PARK;
    // A failure held here stays held until its decision is written: its pause (below), or its retry or failure
    // (failureHandled): a write meanwhile (another branch's) must not find its step in flight, for a takeover to run
    // the failed attempt again.
    if (point.phase === "error" && this.deferred && holdsFailure) return this.hold(point, await details());
    // A point waiting (marked with its step's completion, or before its call) is judged into its mark first, each hit
    // and watch change recorded there as it is taken, and waits no more only then: a write meanwhile (another branch's)
    // must not find it gone past with its hits or its watches' change not recorded, for a takeover to lose or redo.
    if (waited) {
      // Its hit pauses, but a point that came before it and pauses too has not had its turn: that one pauses first,
      // when the run comes to it, in this pass (passAgain), and this one is judged again once that pause is resumed.
      if ((await this.waitsItsTurn(waited, point, scope)) && this.waitsBehind(waited)) {
        this.keepCheckpoint(waited, checkpoint);
        this.deferred = true;
        return PARK;
      }
      if (waited.watches) point.watches = waited.watches;
      point.counted = waited.hits;
    }
    // A failure counted before (its hits kept with it, held), or a boundary the run was going past: not counted again.
    point.counted ??= point.phase === "error" ? this.heldAt(point)?.hits : this.passingAt(point)?.hits;
    let revision = d.breakpointsRevision;
    let evaluated = await evaluate();
    // What its pause would show (a failure's error: what holds it) is taken first: from the hits' count to the pause
    // set (writePause sets it before it writes) or the verdict, all is one change, with no await in it. A write between
    // (another branch's) must not find the hits counted, or the point no longer waiting or held, with no pause there,
    // for a takeover to count them again or to lose the pause.
    const failure = point.phase === "error" && holdsFailure;
    let shown: Partial<PauseDetails> | undefined;
    // Breakpoints another branch's write took up meanwhile (changed on the record) judge the point as they stand when
    // its hits are counted: one removed, disabled or redefined since neither counts nor pauses here, and one added (or
    // redefined) is judged here, the run not past the point yet; the others keep what they made of it.
    for (;;) {
      if (revision !== d.breakpointsRevision) {
        revision = d.breakpointsRevision;
        evaluated = await this.standing(evaluated, point, scope);
      } else if (!shown && (failure || this.pausesAt(point, evaluated))) shown = await details();
      else break;
    }
    shown ??= {};
    const { pause, numbers } = this.count(point, evaluated);
    this.judged(point);
    if (!pause) {
      // Its hits counted (a call's point is marked waiting only where a breakpoint hits): the next write may take them.
      if (waited) this.passCall(point);
      // A failure's are kept with it, held until its retry or its failure is recorded (failureHandled): a takeover from
      // a write meanwhile takes the failure as counted, neither running its attempt again nor counting its hits twice.
      const counted = Object.keys(numbers).length > 0;
      if (counted && failure) this.keepFailure(point, shown).hits = numbers;
      // A boundary's too, until the run records going past it (stepRecorded, attemptStarted).
      if (counted) this.passing(point, numbers);
      return GO;
    }
    // With the pause set, in one change: the pause holds the failure now.
    if (point.phase === "error") this.failureHandled(point.path, point.occurrence);
    const context = { ...shown, ...pause.details };
    await writePause(this.host.committer, this.host.effects, point, pause.cause, scope, context, checkpoint?.());
    return PARK;
  }

  /** The first time the run comes to a point a pause was resumed from: what the command asked for there. */
  private pass(r: ResumedFrom, point: Point): Verdict {
    const d = this.d;
    const { command, output } = r;
    // A failure's pause stays unpassed, its failure held there, until what its command asked is recorded
    // (failureHandled): a write meanwhile must not find its step in flight.
    if (point.phase !== "error") markPassed(r);
    // Its conversation is done with: kept with it (markPassed drops it), or in the pause's slot when it had no room.
    if (d.checkpoint?.stepPath === point.path) d.checkpoint = null;
    if (command === "skip")
      return output === undefined ? { kind: "skip" } : { kind: "skip", output: { value: output } };
    if (command === "retry") return { kind: "retry" };
    const edited = point.phase === "tool_call" && r.pauseId ? editedArguments(d, r.pauseId) : undefined;
    return edited ? { kind: "go", edited } : GO;
  }

  /** A branch's failure while paused elsewhere: kept with its error, to be judged once the run comes back with no pause. */
  private hold(point: Point, failure: Partial<PauseDetails>): Verdict {
    this.keepFailure(point, failure);
    return PARK;
  }

  /** The failure at the error point `point`, held (with `failure`'s error) if it was not. */
  private keepFailure(point: Point, failure: Partial<PauseDetails>): DebugState["held"][number] {
    let held = this.heldAt(point);
    if (!held) {
      held = {
        stepPath: point.path,
        occurrence: point.occurrence,
        error: failure.error ?? "failed",
        retryable: failure.retryable ?? false,
      };
      this.d.held.push(held);
    }
    return held;
  }

  /** A point where a breakpoint matches: it waits there until judged, in its turn (no other branch's pause standing). */
  private markWaiting(point: Point, unfinished?: Record<string, unknown>): void {
    // Not the paused point (a replay while paused at a call comes back to it): it has its turn.
    const pause = this.d.pause;
    if (pause && samePoint(pause, point)) return;
    if (!this.waitingAt(point))
      this.d.waiting.push({
        stepPath: point.path,
        phase: point.phase,
        occurrence: point.occurrence,
        ...(point.toolCall ? { tool: { server: point.toolCall.server, tool: point.toolCall.tool } } : {}),
        ...(unfinished ? { unfinished } : {}),
      });
  }

  /** The step names the enabled watches' expressions can read: few, but all when one reads `steps` whole. */
  private watchedSteps(): readonly string[] {
    const names = new Set<string>();
    for (const bp of this.d.breakpoints) {
      if (bp.type !== "watch" || !bp.enabled) continue;
      const read = keysRead(bp.expression, this.snap.ownerId, "steps");
      if (read === "all") return this.host.names;
      for (const name of read) names.add(name);
    }
    return [...names];
  }

  /** The point's turn came: it waits no more. Returns how it waited, if it did. */
  private judged(point: Point): DebugState["waiting"][number] | undefined {
    const waiting = this.waitingAt(point);
    if (waiting) this.d.waiting = this.d.waiting.filter((w) => w !== waiting);
    return waiting;
  }

  /**
   * Judges a point marked waiting into its mark, and says whether a breakpoint's hit there pauses (behind another
   * branch's pause: whether it waits for its turn). Each hit is counted as the branch comes here (once: its number is
   * recorded with the point), so that one whose `hitCount` it is not goes on at once rather than waiting only to be
   * counted. A change of a watch's value (after a step) is recorded with the point and taken as the watch's value at
   * once, so that no other step takes the change as its own.
   */
  private async waitsItsTurn(waiting: DebugState["waiting"][number], point: Point, scope: Scope): Promise<boolean> {
    // Judged once: a replay's context may hold other branches' changes since, which are theirs.
    const judgedBefore = waiting.hits !== undefined || waiting.watches !== undefined;
    if (point.seen && !judgedBefore)
      for (const bp of this.d.breakpoints) {
        if (bp.type !== "watch" || !bp.enabled) continue;
        const before = this.d.watched[bp.id!];
        const after = await this.remember(bp, point.seen);
        // Not a change of a watch redefined (or removed) meanwhile: that one starts from no value.
        if (before && before.hash !== after.hash && this.stands(bp))
          (waiting.watches ??= {})[bp.id!] = this.keptChange(before, after);
      }
    // The changes are recorded: from here the point counts as judged (its hits follow, each recorded as counted).
    waiting.hits ??= {};
    delete waiting.unfinished;
    const at: Point = { ...point, watches: waiting.watches ?? {} };
    const hits = waiting.hits;
    // Judged on the breakpoints as they stand once all are (another branch's write may take a change up meanwhile):
    // one changed since is not counted, and the list is gone over again, the numbers given kept.
    let pauses = false;
    for (let revision = -1; revision !== this.d.breakpointsRevision;) {
      revision = this.d.breakpointsRevision;
      pauses = false;
      for (const bp of this.d.breakpoints) {
        if (!bp.enabled) continue;
        const id = bp.id!;
        let n = hits[id];
        if (n === undefined) {
          if ((await this.hitOf(bp, at, scope)) === null || !this.stands(bp)) continue;
          n = this.countHit(id);
          hits[id] = n;
        }
        if (hitPauses(bp, n)) pauses = true;
      }
    }
    return pauses;
  }

  /** Whether the attempt `point` is in stands at another of its points: paused there, or waiting its turn. */
  private stoppedInAttempt(point: Point): boolean {
    const pause = this.d.pause;
    if (pause?.stepPath === point.path && INSIDE_AN_ATTEMPT.has(pause.phase)) return true;
    return this.d.waiting.some(
      (w) => w.stepPath === point.path && INSIDE_AN_ATTEMPT.has(w.phase) && !samePoint(w, point),
    );
  }

  /**
   * A waiting attempt's conversation (before a call), kept once if it fits beside the others' (their sum within a
   * pause's own share of the record): one not kept starts its attempt over when its turn comes.
   */
  private keepCheckpoint(
    waiting: DebugState["waiting"][number],
    checkpoint: (() => { attempt: number; state: unknown }) | undefined,
  ): void {
    if (!checkpoint || waiting.checkpoint) return;
    const c = checkpoint();
    if (this.waitingFits(jsonBytes(c.state)))
      waiting.checkpoint = { attempt: c.attempt, state: structuredClone(c.state) };
  }

  /**
   * Whether a point that came before `waiting` (debug.waiting is in the order the branches came) still pauses in its
   * turn, as the console lists it, and the run can come back to it: not one the last pass never came to, nor one
   * inside an attempt whose conversation was not kept (the attempt starts over, and its calls may go otherwise).
   */
  private waitsBehind(waiting: DebugState["waiting"][number]): boolean {
    return this.d.waiting.slice(0, this.d.waiting.indexOf(waiting)).some((w) => this.stillPauses(w));
  }

  /** Whether a waiting point pauses in its turn, and the run can come back to it (waitsBehind). */
  private stillPauses(w: DebugState["waiting"][number]): boolean {
    return (
      !this.unreachable.has(waitingKey(w)) &&
      !(INSIDE_AN_ATTEMPT.has(w.phase) && !w.checkpoint) &&
      mayPauseAt(this.d.breakpoints, w).length > 0
    );
  }

  /**
   * A watch's change kept with a waiting step: its values as `watched` keeps them while they fit beside what the other
   * waiting points keep, else only their hashes and a note (as many branches may wait as a foreach runs items).
   */
  private keptChange(before: Watched, after: Watched): { before: Watched; after: Watched } {
    const change = { before, after };
    if (this.waitingFits(jsonBytes(change))) return change;
    const slim = (w: Watched) => ({ hash: w.hash, value: cutValue(w.value, WATCH_SLIM_BYTES, "value") });
    return { before: slim(before), after: slim(after) };
  }

  /** Whether `bytes` more fit in what the points the run comes back to keep: a pause's own share (keptBytes). */
  private waitingFits(bytes: number): boolean {
    return keptBytes(this.d) + bytes <= this.host.committer.limits.toolCallBytes;
  }

  private waitingAt(point: Point): DebugState["waiting"][number] | undefined {
    return this.d.waiting.find((w) => samePoint(w, point));
  }

  /**
   * Whether an enabled breakpoint matches `point` by what the point alone says, counting nothing: the point is marked
   * waiting before its decision, which counts the hit (waitsItsTurn, behind another branch's pause; else hits).
   */
  private mayHit(point: Point): boolean {
    return this.d.breakpoints.some((bp) => bp.enabled && matchesPoint(bp, point));
  }

  /** A boundary where the run went on with hits counted, not yet recorded past (boundariesPassing). */
  private passingAt(point: Point): DebugState["boundariesPassing"][number] | undefined {
    return this.d.boundariesPassing.find((b) => samePoint(b, point));
  }

  /** At a boundary, the run goes on past `point`, its hits numbered `hits`: kept until it records going past. */
  private passing(point: Point, hits: Record<string, number>): void {
    if (point.phase !== "before" && point.phase !== "item" && point.phase !== "retry") return;
    const others = this.d.boundariesPassing.filter((b) => !samePoint(b, point));
    this.d.boundariesPassing = [
      ...others,
      { stepPath: point.path, phase: point.phase, occurrence: point.occurrence, hits },
    ];
  }

  private heldAt(point: Point): DebugState["held"][number] | undefined {
    return this.d.held.find((h) => heldHere(h, point));
  }

  /** The resumed pause at `point`, if one was (at a tool call, one of the same tool: sameTool), not replaced since. */
  private resumedAt(point: Point): ResumedFrom | undefined {
    return this.d.resumed.find((r) => samePoint(r, point) && !r.replaced && sameTool(r, point));
  }

  /**
   * The attempt, run again (a takeover, or from its start at a later pause's resume), is judged at a call of another
   * tool than a pause there was resumed at: that call is not made in this run, and a later run (a takeover from a write
   * of this one) asking for its tool there again makes a new call, which the command, given for the first, must not
   * touch. So it is done with, in the change that goes on from here (no write of its own): were it left, it would
   * apply there, its skip output and conversation kept in the record until the run's end.
   */
  private replaceCalls(point: Point): void {
    if (point.phase !== "tool_call") return;
    for (const r of this.d.resumed)
      if (samePoint(r, point) && !r.replaced && !sameTool(r, point)) {
        markPassed(r);
        attemptOver(r);
        r.replaced = true;
      }
  }

  /**
   * The run goes on past a call where hits were counted: the attempt's last such call (of its kind), which a takeover
   * running the attempt again passes, with those before it, without counting them again; a tool call, where it asks
   * for the tool each of them did. A call counted where the attempt, run again, asked for another tool than one passed
   * leaves the later calls passed (those asking for their tools again), the tools up to it as this run asked for them.
   */
  private passCall(point: Point): void {
    const { path, phase, occurrence } = point;
    if (phase !== "tool_call" && phase !== "llm_call") return;
    const attempt = this.snap.steps[path]?.attempts ?? 0;
    const mine = (c: DebugState["callsPassed"][number]) => c.stepPath === path && c.phase === phase;
    const before = this.d.callsPassed.find((c) => mine(c) && c.attempt === attempt);
    const last = Math.max(occurrence, before?.occurrence ?? 0);
    const passed: DebugState["callsPassed"][number] = { stepPath: path, phase, attempt, occurrence: last };
    if (phase === "tool_call") {
      // This call, not made yet, and those before it as the step records them in this run of the attempt: those before
      // a pause whose conversation it went on from too, which it never asked the debugger about.
      const made = this.snap.steps[path]?.toolCalls ?? [];
      const asked = (n: number) => calledTool(n === occurrence - 1 ? point.toolCall : made[n]);
      const tools = Array.from({ length: occurrence }, (_, n) => asked(n) ?? before?.tools?.[n] ?? null);
      passed.tools = [...tools, ...(before?.tools?.slice(occurrence, last) ?? [])];
    }
    this.d.callsPassed = [...this.d.callsPassed.filter((c) => !mine(c)), passed];
  }

  /**
   * Whether the run went past the call `point` in this attempt of its step: see passCall. Not a call of another tool
   * than the one passed there: the attempt run again asked anew, and that call is one of its own.
   */
  private callPassed(point: Point): boolean {
    const attempt = this.snap.steps[point.path]?.attempts;
    return this.d.callsPassed.some(
      (c) =>
        c.stepPath === point.path &&
        c.phase === point.phase &&
        c.attempt === attempt &&
        point.occurrence <= c.occurrence &&
        sameTool({ tool: c.tools?.[point.occurrence - 1] }, point),
    );
  }

  /** Counts a hit of breakpoint `id`: its number. */
  private countHit(id: string): number {
    const n = (this.d.hits[id] ?? 0) + 1;
    this.d.hits[id] = n;
    return n;
  }

  /** The enabled breakpoints that hit at `point`, their hits not counted yet (count). */
  private hits(point: Point, scope: Scope): Promise<Evaluated> {
    return this.standing({ hits: [], breakpoints: [] }, point, scope);
  }

  /**
   * What the breakpoints standing now make of `point`, judged on others before (`evaluated`): a breakpoint judged then
   * and not changed since keeps what it made of it, any other is judged now.
   */
  private async standing(evaluated: Evaluated, point: Point, scope: Scope): Promise<Evaluated> {
    const hits: Evaluated["hits"] = [];
    const breakpoints = this.d.breakpoints.filter((bp) => bp.enabled);
    for (const bp of breakpoints) {
      const judged = evaluated.breakpoints.find((was) => sameBreakpoint(was, bp));
      const details = judged
        ? (evaluated.hits.find((h) => h.bp === judged)?.details ?? null)
        : await this.hitOf(bp, point, scope);
      if (details !== null) hits.push({ bp, details });
    }
    return { ...evaluated, hits, breakpoints };
  }

  /** Whether `bp` is still a breakpoint of the run, as defined (judging a point may await a breakpoints change). */
  private stands(bp: Breakpoint): boolean {
    return this.d.breakpoints.some((b) => sameBreakpoint(b, bp));
  }

  /** Whether counting the hits of `evaluated` at `point` now would pause there (count). */
  private pausesAt(point: Point, evaluated: Evaluated): boolean {
    const next = (id: string) => point.counted?.[id] ?? (this.d.hits[id] ?? 0) + 1;
    return !!evaluated.boundary || evaluated.hits.some(({ bp }) => hitPauses(bp, next(bp.id!)));
  }

  /**
   * Each hit at `point` counts (unless counted as its branch came here behind another pause): the first whose
   * `hitCount` it is pauses, else the boundary. `numbers`: the number each breakpoint (by id) gave the hit.
   */
  private count(point: Point, evaluated: Evaluated): { pause: Hit | null; numbers: Record<string, number> } {
    let pause: Hit | null = null;
    const numbers: Record<string, number> = {};
    for (const { bp, details } of evaluated.hits) {
      const id = bp.id!;
      const n = (numbers[id] = point.counted?.[id] ?? this.countHit(id));
      if (!pause && hitPauses(bp, n)) pause = { cause: { breakpointId: id, type: bp.type }, details };
    }
    return { pause: pause ?? evaluated.boundary ?? null, numbers };
  }

  /** Whether `bp` hits at `point`: null if not, else what it adds to the pause's context. */
  private async hitOf(bp: Breakpoint, point: Point, scope: Scope): Promise<Partial<PauseDetails> | null> {
    switch (bp.type) {
      case "conditional":
        return point.phase === "before" ? this.truthy(bp.expression, scope) : null;
      case "watch":
        if (point.phase !== "after") return null;
        // A change the step made while another branch was paused hits for it, `watched` already past it (a later
        // step's change is that step's own).
        return point.watches?.[bp.id!]
          ? watchDetails(bp, point.watches[bp.id!]!)
          : this.watchChanged(bp, this.seenAt(point, scope));
      case "foreach_item":
        if (!matchesPoint(bp, point)) return null;
        return bp.expression === undefined ? {} : this.truthy(bp.expression, scope);
      default:
        return matchesPoint(bp, point) ? {} : null;
    }
  }

  /** An expression that fails hits too, saying so: a breakpoint that cannot be evaluated is one to look at. */
  private async truthy(expression: string, scope: Scope): Promise<Partial<PauseDetails> | null> {
    try {
      return (await evaluateCondition(
        expression,
        expressionContext(this.snap, this.host.names, scope),
        this.snap.ownerId,
      ))
        ? {}
        : null;
    } catch (err) {
      if (err instanceof ExpressionError) return { error: `breakpoint ${err.message}` };
      throw err;
    }
  }

  /** A watch hits after the step whose completion changed its value; the value is remembered in the snapshot. */
  private async watchChanged(
    bp: Extract<Breakpoint, { type: "watch" }>,
    seen: ExpressionContext,
  ): Promise<Partial<PauseDetails> | null> {
    const before = this.d.watched[bp.id!];
    const after = await this.remember(bp, seen);
    if (!before || before.hash === after.hash) return null;
    return watchDetails(bp, { before, after });
  }

  /** Watches not evaluated yet take their first value before the step that may change it. */
  private async initWatches(scope: Scope): Promise<void> {
    for (const bp of this.d.breakpoints)
      if (bp.type === "watch" && bp.enabled && !this.d.watched[bp.id!])
        await this.remember(bp, expressionContext(this.snap, this.host.names, scope));
  }

  /** Every watch takes the value it has in `seen`, without hitting. */
  private async rememberWatches(seen: ExpressionContext): Promise<void> {
    for (const bp of this.d.breakpoints) if (bp.type === "watch" && bp.enabled) await this.remember(bp, seen);
  }

  /** What the watches at `point` are judged on: what was seen as its step completed, else what is seen now. */
  private seenAt(point: Point, scope: Scope): ExpressionContext {
    return point.seen ?? expressionContext(this.snap, this.host.names, scope);
  }

  private async remember(
    bp: Extract<Breakpoint, { type: "watch" }>,
    seen: ExpressionContext,
  ): Promise<{ hash: string; value: unknown }> {
    let value: unknown;
    try {
      value = (await evaluateExpression(bp.expression, seen, this.snap.ownerId)) ?? null;
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      value = { error: err.message };
    }
    const entry = {
      hash: createHash("sha256").update(JSON.stringify(value)).digest("base64url"),
      value: cutValue(value, WATCH_VALUE_BYTES, "value"),
    };
    // Not the value of a watch redefined (or removed) while it was taken: the new one starts from no value.
    if (this.stands(bp)) this.d.watched[bp.id!] = entry;
    return entry;
  }

  /**
   * A `workflow` step stepped into (step_into at its pause): its child runs as a debug run that
   * pauses before its first step, with this run's idle timeout; undefined for any other start.
   */
  childDebug(path: string): DebugRequest | undefined {
    // As asked at the step's own pause: another branch may have paused (and set the run's mode anew) since.
    if (this.d.resumed.findLast((r) => r.stepPath === path)?.command !== "step_into") return undefined;
    return {
      breakpoints: [{ id: STEP_INTO_CHILD, type: "conditional", expression: "true", hitCount: 1, enabled: true }],
      idleTimeout: this.d.idleTimeout,
    };
  }

  /**
   * After `step` / `step_into`: the next step boundary at the level asked for (one deeper for step_into, or from a
   * foreach item).
   */
  private stepBoundary(path: string): Hit | null {
    const r = this.d.resumed.at(-1);
    if (this.d.mode === "run" || !r) return null;
    const level = this.depthOf(r.stepPath) + (this.d.mode === "step_into" || r.phase === "item" ? 1 : 0);
    return this.depthOf(path) <= level ? { cause: { breakpointId: "step", type: "before_step" }, details: {} } : null;
  }

  private depthOf(path: string): number {
    return this.depths.get(stepNameOf(path)) ?? 0;
  }

  private async inputDetails(step: Step, path: string, scope: Scope): Promise<Partial<PauseDetails>> {
    const edited = this.inputFor(path);
    if (edited) return { input: edited.value };
    try {
      const input = await this.host.stepInput(step, scope);
      return input === undefined ? {} : { input };
    } catch (err) {
      if (err instanceof ExpressionError) return { error: err.message };
      throw err;
    }
  }

  /** Whether iteration `index` of the foreach at `path` has begun: a state recorded, or a pause in it. */
  private iterationStarted(path: string, index: number): boolean {
    const prefix = `${path}[${index}].`;
    const { pause, resumed } = this.d;
    if (pause?.stepPath.startsWith(prefix) || resumed.some((r) => r.stepPath.startsWith(prefix))) return true;
    for (const p of Object.keys(this.snap.steps)) if (p.startsWith(prefix)) return true;
    return false;
  }
}

/** Whether a point is inside an attempt of the step at `path`: its own calls and items, or a step it holds. */
function insideAttempt(
  step: Step,
  path: string,
  scope: Scope,
): (point: Pick<ResumedFrom, "stepPath" | "phase">) => boolean {
  const nested = nestedPathTest(step, path, scope.prefix);
  return (p) => (p.stepPath === path ? INSIDE_AN_ATTEMPT.has(p.phase) : nested(p.stepPath));
}

/** A waiting point's key, among the points of one run. */
function waitingKey(w: { stepPath: string; phase: PausePhase; occurrence: number }): string {
  return `${w.phase} ${w.stepPath} ${w.occurrence}`;
}

function samePoint(a: { stepPath: string; phase: PausePhase; occurrence: number }, p: Point): boolean {
  return a.stepPath === p.path && a.phase === p.phase && a.occurrence === p.occurrence;
}

/**
 * Whether the call at `p` asks for the tool the pause `r` was resumed at (or a call passed there asked for): an attempt
 * run again (by a takeover, or from its start) may ask for another there, a new call, to which the command given for
 * the first does not apply, and whose hits count. An entry recorded before tools were (or at an LLM call) names none.
 */
function sameTool(r: { tool?: CalledTool | null }, p: Point): boolean {
  return !r.tool || !p.toolCall || (r.tool.server === p.toolCall.server && r.tool.tool === p.toolCall.tool);
}

/** The tool a call the step recorded asked for. */
function calledTool(made: { server: string; tool: string } | undefined): CalledTool | undefined {
  return made && { server: made.server, tool: made.tool };
}

/**
 * A step path held by a pause: the step is not running, whatever its state says (a takeover must not count it in
 * flight).
 */
export function heldByPause(snap: ExecutionSnapshot, path: string): boolean {
  const d = snap.debug;
  if (!d) return false;
  return (
    d.pause?.stepPath === path || d.held.some((h) => h.stepPath === path) || d.waiting.some((w) => w.stepPath === path)
  );
}

/**
 * The steps of `names` (those the watches read) that `seen` does not show completed (null: no state): all that other
 * branches may change before a replay (a completed step's output changes only at a pause, which a held run's replay
 * never comes after).
 */
function unfinishedIn(seen: ExpressionContext, names: readonly string[]): Record<string, unknown> {
  const unfinished: Record<string, unknown> = {};
  for (const name of names) {
    const st = seen.steps[name] as { status?: string } | undefined;
    if (st?.status !== "COMPLETED") unfinished[name] = st ?? null;
  }
  return unfinished;
}

/** `seen` with the steps that were not completed as they were (`unfinished`), absent ones absent. */
function asSeen(seen: ExpressionContext, unfinished: Record<string, unknown>): ExpressionContext {
  const steps = { ...seen.steps };
  for (const [name, st] of Object.entries(unfinished)) {
    if (st === null) delete steps[name];
    else steps[name] = st;
  }
  return { ...seen, steps };
}

/** What a watch's pause says of its change. */
function watchDetails(
  bp: Extract<Breakpoint, { type: "watch" }>,
  change: { before: { value: unknown }; after: { value: unknown } },
): Partial<PauseDetails> {
  return { watch: { expression: bp.expression, before: change.before.value, after: change.after.value } };
}

/**
 * Done with: a passed point is kept only to say that it paused. But a call's skip output is kept until its attempt ends
 * (attemptOver), as its edited arguments are (debug.edits): a takeover runs an attempt in flight again (CALLS).
 */
function markPassed(r: ResumedFrom): void {
  r.passed = true;
  delete r.checkpoint;
  delete r.error;
  delete r.retryable;
  if (!CALLS.has(r.phase)) delete r.output;
}

/** The attempt the point `r` is in is over (or the run): no takeover runs it again, nor comes back to `r`. */
function attemptOver(r: ResumedFrom): void {
  delete r.checkpoint;
  if (r.passed) delete r.output;
}

/** Whether `held` is the failure at the error point `point`. */
function heldHere(held: DebugState["held"][number], point: Point): boolean {
  return point.phase === "error" && held.stepPath === point.path && held.occurrence === point.occurrence;
}
