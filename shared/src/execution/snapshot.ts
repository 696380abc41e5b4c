import { z } from "zod";
import { DebugState } from "./debug";
import { Usage, ZERO_USAGE } from "./usage";

export const EXECUTION_STATUSES = [
  "PENDING",
  "RUNNING",
  "AWAITING_APPROVAL",
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "INTERRUPTED",
] as const;
export const ExecutionStatus = z.enum(EXECUTION_STATUSES);
export type ExecutionStatus = z.infer<typeof ExecutionStatus>;
export const TERMINAL_STATUSES: ReadonlySet<ExecutionStatus> = new Set([
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "INTERRUPTED",
]);
/** The event an execution ends with, by its final status: `exec_completed`, `exec_failed`, … */
export function endEventType(status: ExecutionStatus): string {
  return `exec_${status.toLowerCase()}`;
}
/** Every event an execution can end with. */
export const END_EVENT_TYPES: readonly string[] = [...TERMINAL_STATUSES].map(endEventType);
const ENDED_BY = new Map([...TERMINAL_STATUSES].map((status) => [endEventType(status), status]));
/** The final status an end event says its execution reached; undefined for every other event. */
export function endedStatus(eventType: string): ExecutionStatus | undefined {
  return ENDED_BY.get(eventType);
}

export const StepStatus = z.enum([
  "PENDING",
  "RUNNING",
  "COMPLETED",
  "FAILED",
  "SKIPPED",
  "AWAITING_APPROVAL",
  "REJECTED",
  "EXPIRED",
  "CANCELLED",
]);
export type StepStatus = z.infer<typeof StepStatus>;

export const TriggerSource = z.enum(["open_api", "webhook", "console", "schedule", "chained", "step_test"]);
export type TriggerSource = z.infer<typeof TriggerSource>;

export { Usage, ZERO_USAGE } from "./usage";

/** One tool call of an agent step, as recorded in its result and its `step_tool_call` event. */
export const ToolCallRecord = z.object({
  turn: z.number().int().positive(),
  server: z.string(),
  tool: z.string(),
  /** As the model wrote them: an object, or the text when it was not a JSON object. */
  arguments: z.unknown(),
  /** The text the model was given (cut at 8 KB here; the model saw it whole). */
  result: z.string(),
  isError: z.boolean(),
  durationMs: z.number().nonnegative(),
});
export type ToolCallRecord = z.infer<typeof ToolCallRecord>;

/**
 * The execution and `workflow` step that started this one. `depth`: how many sub-workflow calls deep it runs, 1 for a
 * child of an execution started otherwise (absent in records made before it was kept: read as 1).
 */
export const ParentRef = z.object({
  executionId: z.string(),
  stepPath: z.string(),
  depth: z.number().int().min(1).optional(),
});
export type ParentRef = z.infer<typeof ParentRef>;

/**
 * How many sub-workflow calls deep an execution may run: a workflow that calls itself without end fails there, naming
 * the bound, instead of starting executions until cancelled (docs/workflow-format.md#sub-workflows).
 */
export const MAX_CALL_DEPTH = 32;

/** The depth of a child of an execution whose parent is `parent`. */
export function childDepth(parent: ParentRef | null): number {
  return parent ? (parent.depth ?? 1) + 1 : 1;
}

/** One step's state, keyed in the snapshot by its path (`name`, or `loop[2].name` inside foreach). */
export const StepState = z.object({
  name: z.string(),
  type: z.string(),
  status: StepStatus,
  output: z.unknown().optional(),
  error: z.string().nullable().default(null),
  attempts: z.number().int().nonnegative().default(0),
  startedAt: z.number().nullable().default(null),
  completedAt: z.number().nullable().default(null),
  duration: z.number().nullable().default(null),
  /** Due time of a `wait` step's durable timer. */
  waitUntil: z.number().nullable().default(null),
  /** Due time of the next attempt while a retry backs off (a durable timer too). */
  retryAt: z.number().nullable().default(null),
  /** Absolute deadline from the `timeout` modifier, for steps that may park. */
  deadline: z.number().nullable().default(null),
  /** The deadline whose durable timer is armed, once the step has parked. */
  deadlineArmed: z.number().optional(),
  childExecutionId: z.string().nullable().default(null),
  /** The approval record a `manual_approval` step waits on (or was decided by). */
  approvalId: z.string().nullable().default(null),
  /** The approved rows per group, as the gated step sees them in `approval.<group>`. */
  approved: z.record(z.string(), z.array(z.record(z.string(), z.unknown()))).optional(),
  /** Kept only when the execution has `enableMonitoring`. */
  input: z.unknown().optional(),
  logs: z.array(z.string()).optional(),
  usage: Usage.optional(),
  /** An agent step's tool calls in its latest attempt, in order. */
  toolCalls: z.array(ToolCallRecord).optional(),
  /** Ids of the artifacts the step wrote. */
  artifacts: z.array(z.string()).optional(),
  /** A rerun took this step's state from the execution it reruns: it did not run here. */
  reused: z.boolean().optional(),
  /**
   * A rerun reused this step's result as a debugger's `set` left it in the source: its output (or the input or a tool
   * call's arguments it ran with) was edited there, at this step or at a step in it.
   */
  edited: z.literal(true).optional(),
  /** A debugger's `skip` ended the step (SKIPPED, or COMPLETED with the output a person gave): it did not run. */
  byDebugger: z.literal(true).optional(),
  /** A step test took this step's output from its pin (also `reused`): it did not run here. */
  pinned: z.boolean().optional(),
});
export type StepState = z.infer<typeof StepState>;

export const ExecutionEvent = z.object({
  /** Subject token: exec_started, step_completed, … */
  type: z.string().regex(/^[a-z_]+$/),
  executionId: z.string(),
  workflowId: z.string(),
  ownerId: z.string(),
  at: z.number(),
  /** Unique per event; used as Nats-Msg-Id so a re-published outbox is not doubled. */
  id: z.string(),
  step: z.string().optional(),
  data: z.record(z.string(), z.unknown()).default({}),
});
export type ExecutionEvent = z.infer<typeof ExecutionEvent>;

/** Who is running the execution right now: the actor holding the command message at `seq`. */
export const Holder = z.object({ actor: z.string(), seq: z.number().int(), since: z.number() });
export type Holder = z.infer<typeof Holder>;

/**
 * A run of one step alone: the steps before it that `contextFrom` completed are taken from it
 * as recorded, `step` runs, and the execution ends with it (docs/rerun.md#testing-one-step).
 */
export const StepTest = z.object({
  step: z.string(),
  contextFrom: z.string().nullable(),
  /** The foreach item the step runs in, one index per foreach holding it, outermost first. */
  itemIndexes: z.array(z.number().int().nonnegative()).default([]),
  /** The step (llm or agent) does not run: the execution's output is what its call would cost (CostEstimate). */
  estimateOnly: z.boolean().optional(),
  /** For an estimate: what the step cost in `contextFrom`, whose answers' length it assumes again. */
  lastUsage: Usage.nullable().optional(),
  /** Outputs pinned to top-level steps before it, as they were when the test started: they stand in for those steps. */
  pinned: z.record(z.string(), z.unknown()).optional(),
});
export type StepTest = z.infer<typeof StepTest>;
/** A step test as a starter asks for it: `itemIndexes` may be left out. */
export type StepTestRequest = z.input<typeof StepTest>;

export const ExecutionSnapshot = z.object({
  id: z.string(),
  workflowId: z.string(),
  workflowName: z.string(),
  workflowVersion: z.number().int().nullable().default(null),
  ownerId: z.string(),
  triggerSource: TriggerSource,
  enableMonitoring: z.boolean().default(false),
  status: ExecutionStatus,
  error: z.string().nullable().default(null),
  currentStep: z.string().nullable().default(null),
  completedSteps: z.number().int().nonnegative().default(0),
  totalSteps: z.number().int().nonnegative(),
  createdAt: z.number(),
  startedAt: z.number().nullable().default(null),
  completedAt: z.number().nullable().default(null),
  /**
   * Resolved workflow variables (defaults applied, inputs validated). Taken as they are, not copied: large ones read
   * by reference are frozen and known stored by their identity (ExecutionRepo.nameVariables).
   */
  vars: z.custom<Record<string, unknown>>(
    (v) => typeof v === "object" && v !== null && !Array.isArray(v),
    "vars: expected an object",
  ),
  /** The parsed workflow as it was when the execution started: a later edit does not change a run. */
  definition: z.unknown(),
  steps: z.record(z.string(), StepState).default({}),
  output: z.unknown().optional(),
  usage: Usage.default(ZERO_USAGE),
  parent: ParentRef.nullable().default(null),
  holder: Holder.nullable().default(null),
  cancelRequested: z.boolean().default(false),
  /** Why, where the cancel said (a debugger's abort): the error the execution ends with. */
  cancelReason: z.string().optional(),
  /** Number of events published so far: event ids are `<execId>.<n>`, stable across re-publishing. */
  eventSeq: z.number().int().nonnegative().default(0),
  /** Events of the last change, re-published after a crash (deduplicated by their ids). */
  outbox: z.array(ExecutionEvent).default([]),
  /** A debug run's breakpoints, its pause and the edits made at its pauses; null: not a debug run. */
  debug: DebugState.nullable().default(null),
  /** The execution this one reruns, and the step it reruns from. */
  rerunOf: z.string().nullable().default(null),
  rerunFrom: z.string().nullable().default(null),
  /** What the reused steps had cost their first run: `usage` counts only what ran here. */
  savedUsage: Usage.default(ZERO_USAGE),
  /** A step test (docs/rerun.md#testing-one-step): only `step` runs; null: every step runs. */
  stepTest: StepTest.nullable().default(null),
});
export type ExecutionSnapshot = z.infer<typeof ExecutionSnapshot>;
