import { z } from "zod";
import { ExecutionStatus, StepStatus, ToolCallRecord, TriggerSource, Usage } from "../execution/snapshot";
import { Id, Timestamp } from "./common";
import { MAX_JSON_DEPTH } from "./json-depth";
import { PageFields, pageQuery } from "./pagination";

export const StartExecutionBody = z.strictObject({
  inputs: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      `Workflow variables by name; each must be declared by the workflow, with its type. Objects and arrays may nest at most ${MAX_JSON_DEPTH} levels deep, the body being the first.`,
    ),
  enableMonitoring: z.boolean().default(false).describe("Keep each step's resolved input and log lines."),
});

export const StartExecutionResponse = z.object({
  executionId: z.string(),
  status: z.literal("PENDING"),
  workflowId: z.string(),
  startedAt: Timestamp.describe("When the request was accepted."),
});

export const ExecutionListQuery = z.strictObject({
  workflowId: Id.optional().describe("Only this workflow's executions (it may be one shared with the caller)."),
  status: ExecutionStatus.optional(),
  triggerSource: z
    .enum(["step_test"], { error: "must be step_test" })
    .optional()
    .describe("`step_test`: list step tests, which are otherwise left out (docs/rerun.md#testing-one-step)."),
  from: Id.optional().describe(
    "Start the list at this execution (it and older ones): pass page 1's first item here for every later page, and pages neither skip nor repeat an execution while newer ones are started.",
  ),
  ...pageQuery(20),
});

/** Only on a rerun (docs/rerun.md). */
const rerunFields = {
  rerunOf: z.string().optional().describe("A rerun: the execution it reruns."),
  savedUsage: Usage.optional().describe(
    "A rerun: tokens and cost of the steps it reused instead of running; `usage` counts only what it ran.",
  ),
};

export const StepResult = z.object({
  status: StepStatus,
  output: z.unknown(),
  duration: z.number().nullable().describe("Milliseconds."),
  startedAt: Timestamp.nullable(),
  completedAt: Timestamp.nullable(),
  error: z.string().nullable(),
  attempts: z.number().int(),
  usage: Usage.nullable().describe("Tokens and cost of an `llm` or `agent` step's calls, every attempt included."),
  toolCalls: z.array(ToolCallRecord).optional().describe("An `agent` step's tool calls and their results."),
  input: z.unknown().optional().describe("With enableMonitoring only."),
  logs: z.array(z.string()).optional().describe("With enableMonitoring only."),
  reused: z
    .literal(true)
    .optional()
    .describe("A rerun took this step's result from the execution it reruns: the step did not run here."),
  edited: z
    .literal(true)
    .optional()
    .describe(
      "A reused result that a debugger's `set` edited in the execution rerun (at this step or a step in it): reused as edited.",
    ),
});
export type StepResult = z.infer<typeof StepResult>;

export const ExecutionSummary = z.object({
  id: z.string(),
  workflowId: z.string(),
  status: ExecutionStatus,
  currentStep: z.string().nullable(),
  completedSteps: z.number().int(),
  totalSteps: z.number().int(),
  startAt: Timestamp.nullable().describe("When an executor started it; null while PENDING."),
  completeAt: Timestamp.nullable(),
  error: z.string().nullable(),
  triggerSource: TriggerSource,
  usage: Usage,
  createdAt: Timestamp.describe("When it was requested."),
  ...rerunFields,
});
export type ExecutionSummary = z.infer<typeof ExecutionSummary>;

export const ExecutionStatusView = ExecutionSummary.extend({
  stepResults: z
    .record(z.string(), StepResult)
    .describe("Step path (`name`, or `loop[2].name` inside a foreach) to its result."),
});
export type ExecutionStatusView = z.infer<typeof ExecutionStatusView>;

export const ExecutionList = z.object({ items: z.array(ExecutionSummary), ...PageFields });

export const RESULT_STATUSES = ["COMPLETED", "FAILED", "CANCELLED"] as const;

export const ExecutionResult = z.object({
  executionId: z.string(),
  status: z.enum(RESULT_STATUSES),
  stepResults: z.record(z.string(), StepResult),
  duration: z.number().nullable().describe("Milliseconds from start (or request, if it never started) to the end."),
  output: z.unknown(),
  error: z.string().nullable(),
  usage: Usage.describe("Tokens and cost of every LLM call of the execution."),
  ...rerunFields,
});
export type ExecutionResult = z.infer<typeof ExecutionResult>;

export const CancelBody = z.strictObject({}).describe("No fields: the body may be left out.");

export const CancelResponse = z.object({ executionId: z.string(), status: z.literal("CANCELLED") });
