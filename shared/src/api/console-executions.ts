import { z } from "zod";
import { Breakpoint, DebugEdit, DebugRequest, PauseRecord } from "../execution/debug";
import { EXECUTION_STATUSES, StepStatus, Usage } from "../execution/snapshot";
import { Timestamp } from "./common";
import { DebugWaitingPoint } from "./console-debug";
import { ExecutionSummary, StartExecutionBody } from "./executions";

export const ConsoleStartBody = z.strictObject({
  inputs: StartExecutionBody.shape.inputs,
  enableMonitoring: z
    .boolean()
    .default(true)
    .describe(
      "Keep each step's resolved input and log lines, which the console's step view shows. On by default here (a person is watching); false leaves them out.",
    ),
  debug: DebugRequest.optional().describe(
    "Run under the debugger: the execution pauses at these breakpoints and waits for a debug command (POST /api/console/executions/{id}/debug/{command}).",
  ),
  version: z
    .int()
    .positive()
    .optional()
    .describe(
      "The version the caller shows: when the stored workflow is at another, nothing starts and the answer is 409 CONFLICT with `currentVersion` (a tab left behind by a save elsewhere).",
    ),
});

/** The v1 statuses, and PAUSED: a debug run waiting at a breakpoint (which v1 reports as RUNNING). */
export const ConsoleExecutionStatus = z.enum([...EXECUTION_STATUSES, "PAUSED"]);
export type ConsoleExecutionStatus = z.infer<typeof ConsoleExecutionStatus>;

export const ConsoleStepView = z.object({
  status: StepStatus,
  output: z.unknown(),
  error: z.string().nullable(),
  attempts: z.number().int(),
  duration: z.number().nullable().describe("Milliseconds."),
  startedAt: Timestamp.nullable(),
  completedAt: Timestamp.nullable(),
  usage: Usage.nullable().describe("Tokens and cost of an `llm` or `agent` step's calls, every attempt included."),
  reused: z.boolean().describe("A rerun took this step's result from the execution it reruns: it did not run here."),
  edited: z
    .boolean()
    .describe("A reused result that a debugger's `set` edited in the execution rerun (here or in a step in it)."),
  pinned: z
    .boolean()
    .describe("A step test took this step's output from its pin (it is `reused` too): it did not run here."),
  approvalId: z.string().nullable().describe("The approval a `manual_approval` step waits on, or was decided by."),
  childExecutionId: z
    .string()
    .nullable()
    .describe("The execution a `workflow` step started (a debug run of its own after `step_into`), once started."),
  artifacts: z.array(z.string()).describe("Ids of the artifacts the step wrote."),
  edits: z
    .array(DebugEdit)
    .describe(
      "What the debugger's `set` (or `skip` with an output) changed at this step's pauses: who, when, the value before and after.",
    ),
});
export type ConsoleStepView = z.infer<typeof ConsoleStepView>;

export const ConsoleExecutionView = ExecutionSummary.extend({
  status: ConsoleExecutionStatus,
  debug: z.boolean().describe("A debug run: its breakpoints can be changed and its pauses answered."),
  pause: PauseRecord.nullable().describe("Where a debug run waits, and what it saw there; null when it does not wait."),
  waiting: z
    .array(DebugWaitingPoint)
    .describe(
      "While paused: the points other branches came to where a breakpoint may pause them, each waiting its turn once " +
        "the pause is answered, in the order they came. Empty when not paused.",
    ),
  held: z
    .array(DebugWaitingPoint)
    .describe(
      "While paused: other branches' failures, each held at its point (phase `error`) until the pause is answered, " +
        "then paused at by an `on_error` breakpoint or handled as without a debugger. Empty when not paused.",
    ),
  breakpoints: z.array(Breakpoint).describe("A debug run's breakpoints, ids assigned; empty for other runs."),
  breakpointsRevision: z
    .number()
    .int()
    .nonnegative()
    .describe("How many times the breakpoints were replaced: a change (PUT …/debug/breakpoints) is made on it."),
  edits: z.array(DebugEdit).describe("What `set` (or `skip` with an output) changed at the pauses, in order."),
  steps: z
    .record(z.string(), ConsoleStepView)
    .describe("Step path (`name`, or `loop[2].name` inside a foreach) to its state."),
  rerunOf: z.string().nullable().describe("The execution this one reruns."),
  savedUsage: Usage.describe("What the reused steps had cost their first run; `usage` counts only what ran here."),
  definition: z
    .unknown()
    .describe("The workflow as it was when the execution started (a later import does not change a run)."),
  workflowVersion: z
    .number()
    .int()
    .nullable()
    .describe("The version of the stored workflow that ran; null when none was recorded."),
  variables: z
    .record(z.string(), z.unknown())
    .describe("The variables it runs with: its inputs, defaults applied (and what a debugger's `set` changed)."),
  output: z.unknown().describe("The execution's output, its last completed top-level step's; null until it completes."),
  eventSeq: z
    .number()
    .int()
    .describe(
      "How many of the execution's events this view reflects: an event whose id is `<executionId>.<n>` with n above it came after.",
    ),
});
export type ConsoleExecutionView = z.infer<typeof ConsoleExecutionView>;
