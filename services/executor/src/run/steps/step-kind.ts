import type { StepState } from "@wf/shared/execution";
import type { Step, Workflow } from "@wf/shared/workflow";
import type { RunCommitter } from "../committer";
import type { Debugger } from "../debug/debugger";
import type { RunEffects } from "../effects";
import type { Scope } from "../scope";
import type { FanOutBudget } from "./fan-out-budget";

/** What one attempt of a step comes to. */
export type Attempt =
  | { kind: "completed"; output: unknown }
  /**
   * `retryable`: whether the step's `retry` may try again (false for what cannot pass, such as an expression error).
   * `timedOut`: the attempt ran out of the step's `timeout`.
   */
  | { kind: "failed"; error: string; retryable: boolean; timedOut?: true }
  /** Waiting on a durable timer or another execution: the run resumes it when woken. */
  | { kind: "parked" };

/** What a step, or a list of steps, comes to. */
export type Outcome =
  | { kind: "completed"; output: unknown }
  | { kind: "skipped" }
  /** `gateClosed`: an approval was rejected or expired, so what follows it is skipped. */
  | { kind: "failed"; error: string; gateClosed?: true }
  | { kind: "parked" };

/** What a step kind may use of the run that executes it. */
export interface StepContext {
  readonly committer: RunCommitter;
  readonly effects: RunEffects;
  readonly workflow: Workflow;
  /** The breakpoints of a debug run; null for any other run (then nothing else is looked at). */
  readonly debug: Debugger | null;
  /** Evaluates the `{{ }}` templates in `value` where the step runs. */
  render(value: unknown, scope: Scope): Promise<unknown>;
  /**
   * Runs steps in order as the run does the workflow's own (replay, conditions, retries…): a container's children.
   * `lastWrittenAfter`: the last step's result, where it acted outside, is owed (RunCommitter.oweWrite) rather than
   * written at once: the caller runs on and writes it.
   */
  runSequence(steps: readonly Step[], scope: Scope, opts?: { lastWrittenAfter?: boolean }): Promise<Outcome>;
  /** What the execution's containers run at once beyond one run each, shared by them all. */
  readonly fanOut: FanOutBudget;
}

/** Where an attempt runs: the step's path, its recorded state (which the attempt may add to) and its scope. */
export interface StepAt {
  path: string;
  state: StepState;
  scope: Scope;
  /** The input a debugger's `set` gave the step in place of its own (see StepKind.input). */
  input?: { value: unknown };
}

/** How the run executes the steps of one type. */
export interface StepKind<S extends Step> {
  /**
   * Runs one attempt. An ExpressionError it throws fails the step without retry. A method, so
   * that the kinds, each typed for its own steps, also read as kinds of any step.
   */
  run(ctx: StepContext, step: S, at: StepAt): Promise<Attempt>;
  /** It stops an attempt at the step's `timeout` itself, so the run keeps no deadline for it. */
  readonly timesItself?: true;
  /**
   * What the step acts on, its templates evaluated: what a debugger's before_step pause shows,
   * and what a `set` there may replace (`StepAt.input`). None for kinds with nothing to edit.
   */
  input?(ctx: StepContext, step: S, scope: Scope): Promise<unknown>;
}

/**
 * Whether a container whose branch or item failed while others parked waits before it fails: while the debugger is
 * paused (or a pause is to come, a point waiting for an earlier one's turn), a parked branch may be the paused one,
 * whose command is still to be carried out (a continue, skip or retry at a failure there), or one waiting its turn, so
 * the container's failure is concluded when the run comes back with no pause. Otherwise the failure ends the container
 * at once, and what its other branches wait on is cancelled.
 */
export function waitsForPause(ctx: StepContext, results: readonly (Outcome | undefined)[]): boolean {
  return ctx.debug?.pausing === true && results.some((r) => r?.kind === "parked");
}
