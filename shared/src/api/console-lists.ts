import { z } from "zod";
import { ExecutionStatus, StepStatus, ToolCallRecord, TriggerSource, Usage } from "../execution/snapshot";
import { ArtifactView } from "./artifacts";
import { Id, Timestamp } from "./common";
import { ExecutionSummary } from "./executions";
import { MAX_PAGE_SIZE } from "./pagination";

const EpochMs = z.coerce
  .number({ error: "must be epoch milliseconds" })
  .int("must be epoch milliseconds")
  .min(0, "must be epoch milliseconds");

/** GET /api/console/executions (docs/api.md, Console API). */
export const ConsoleExecutionListQuery = z.strictObject({
  workflowId: Id.optional().describe("Only this workflow's executions (it may be one shared with you)."),
  status: ExecutionStatus.optional(),
  triggerSource: TriggerSource.optional().describe(
    "Only executions of this trigger source. Step tests (`step_test`) are listed only when asked for.",
  ),
  since: EpochMs.optional().describe("Only executions requested at or after this time (epoch ms)."),
  until: EpochMs.optional().describe("Only executions requested at or before this time (epoch ms)."),
  cursor: z
    .string()
    .min(1)
    .max(4096, "must have at most 4096 characters")
    .optional()
    .describe("`nextCursor` of the previous page; left out for the first."),
  limit: z.coerce
    .number({ error: "must be an integer" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
    .default(20)
    .describe(`Page size, default 20, at most ${MAX_PAGE_SIZE}.`),
});
export type ConsoleExecutionListQuery = z.infer<typeof ConsoleExecutionListQuery>;

export const ConsoleExecutionList = z.object({
  items: z.array(ExecutionSummary).describe("Newest first (by createdAt, then id)."),
  nextCursor: z
    .string()
    .nullable()
    .describe(
      "Pass as `cursor` for the next page; null when there is none. A page may hold fewer than `limit` items and still have a next one.",
    ),
});

export const StepParams = z.strictObject({
  id: Id,
  path: z
    .string()
    .min(1, "must not be empty")
    .max(1024, "must have at most 1024 characters")
    .describe("The step's path: `name`, or `loop[2].name` inside a foreach (URL-encoded)."),
});

/** GET /api/console/executions/{id}/steps/{path}. */
export const ConsoleStepDetail = z.object({
  path: z.string(),
  name: z.string(),
  type: z.string(),
  status: StepStatus,
  input: z.unknown().describe("The resolved input, or null (kept only with enableMonitoring)."),
  output: z.unknown(),
  logs: z.array(z.string()).describe("Log lines (kept only with enableMonitoring; otherwise empty)."),
  error: z.string().nullable(),
  attempts: z.number().int(),
  duration: z.number().nullable().describe("Milliseconds."),
  startedAt: Timestamp.nullable(),
  completedAt: Timestamp.nullable(),
  usage: Usage.nullable(),
  toolCalls: z.array(ToolCallRecord).describe("An `agent` step's tool calls in its latest attempt; otherwise empty."),
  artifacts: z.array(ArtifactView).describe("The files the step wrote, each with a signed downloadUrl."),
  reused: z.boolean(),
  edited: z.boolean().describe("A reused result that a debugger's `set` edited in the execution rerun."),
  pinned: z.boolean().describe("A step test took this step's output from its pin (it is `reused` too)."),
});
export type ConsoleStepDetail = z.infer<typeof ConsoleStepDetail>;
