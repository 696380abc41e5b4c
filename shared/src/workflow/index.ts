export {
  WorkflowSchema,
  VariableDefSchema,
  AgentDefSchema,
  McpServerSchema,
  TriggerSchema,
  ScheduleTriggerSchema,
  DelayedCompletionTriggerSchema,
  COMPLETION_STATES,
  type Workflow,
  type VariableDef,
  type AgentDef,
  type McpServer,
  type Trigger,
  type ScheduleTrigger,
  type DelayedCompletionTrigger,
} from "./schema";
export { JsonValueSchema, STEP_NAME_PATTERN, type JsonValue } from "./schema-basics";
export {
  RetryPolicySchema,
  ManualApprovalSchema,
  ApprovalGroupSchema,
  ApprovalColumnSchema,
  type RetryPolicy,
  type ManualApproval,
  type ApprovalGroup,
  type ApprovalColumn,
} from "./step-modifiers";
export {
  STEP_TYPE_TABLE,
  STEP_TYPES,
  StepSchema,
  CodeStepSchema,
  LlmStepSchema,
  AgentStepSchema,
  TransformStepSchema,
  ForeachStepSchema,
  ParallelStepSchema,
  WaitStepSchema,
  WorkflowCallStepSchema,
  CodeLanguageSchema,
  CODE_LANGUAGES,
  stepTypeSpec,
  childSteps,
  type Step,
  type StepType,
  type CodeStep,
  type LlmStep,
  type AgentStep,
  type TransformStep,
  type ForeachStep,
  type ParallelStep,
  type WaitStep,
  type WorkflowCallStep,
  type CodeLanguage,
} from "./step-types";
export { VARIABLE_TYPES, type VariableType } from "./value-types";
export { parseWorkflow, type ParseResult } from "./parse";
export { validateWorkflowText, workflowTextValidation, type OwnerBounds, type ValidationResult } from "./validate";
export { formatIssues, type WorkflowIssue } from "./issues";
export { WorkflowDocument, type InsertPosition } from "./document";
export {
  resolveVariables,
  coerceVariable,
  type ResolveResult,
  type CoerceResult,
  type VariableError,
} from "./variables";
export { walkSteps, countSteps, stepLineage, stepNameOf, type StepLineage } from "./walk";
export { workflowJsonSchema } from "./json-schema";
export { nextCronTime } from "./cron";
export { compileError, isWholeTemplate } from "./expressions-check";
export { isUnknownStepIssue } from "./semantic";
export { MAX_EXECUTION_FAN_OUT, MAX_FOREACH_CONCURRENCY, MAX_PARALLEL_BRANCHES } from "./fan-out-bounds";
export { MAX_OUTPUT_SCHEMA_CHARS, outputSchemaSizeProblem } from "./output-schema-bounds";
export { STEP_REFERENCE, stepReferences } from "./step-references";
