export { Id, IdParams, Timestamp } from "./common";
export { MAX_JSON_DEPTH, tooDeepAt } from "./json-depth";
export { MAX_PAGE_SIZE, pageQuery, PageFields } from "./pagination";
export {
  ErrorBody,
  ErrorCodeSchema,
  FieldProblem,
  ValidationErrorBody,
  RateLimitWindow,
  RateLimitErrorBody,
  RetryAfterErrorBody,
  ResultNotReadyBody,
} from "./errors";
export { WorkflowListQuery, WorkflowSummary, WorkflowList, WorkflowDetail } from "./workflows";
export {
  StartExecutionBody,
  StartExecutionResponse,
  ExecutionListQuery,
  StepResult,
  ExecutionSummary,
  ExecutionStatusView,
  ExecutionList,
  ExecutionResult,
  RESULT_STATUSES,
  CancelBody,
  CancelResponse,
} from "./executions";
export {
  ApprovalListQuery,
  ConsoleApprovalListQuery,
  ExecutionIdParams,
  ReviewableGroup,
  ApprovalView,
  ApprovalList,
  ApprovalsOfExecution,
  ApproveBody,
  RejectBody,
  ApprovalDecision,
} from "./approvals";
export { ArtifactParams, ArtifactView, ArtifactList, DownloadQuery } from "./artifacts";
export {
  MAX_ALLOWED_SOURCE_IPS,
  WebhookMode,
  VariableMapping,
  AllowedSourceIps,
  CreateWebhookBody,
  UpdateWebhookBody,
  WebhookView,
  WebhookListQuery,
  WebhookList,
  WebhookStatsView,
  WebhookTriggerParams,
  WebhookTriggerResponse,
} from "./webhooks";
export { parseIpRange } from "./webhooks-ip";
export { ConsoleSession, LoginBody, LoginResponse } from "./console";
export { RerunBody, RerunQuery, RerunPlanView, RerunResponse } from "./rerun";
export { CostEstimate, StepTestBody, StepTestResponse } from "./step-test";
export { MAX_PIN_BYTES, MAX_WORKFLOW_PINS_BYTES, PinParams, PinBody, ConsolePin, ConsoleWorkflowPins } from "./pins";
export { ConsoleStartBody, ConsoleExecutionStatus, ConsoleStepView, ConsoleExecutionView } from "./console-executions";
export { EventSequence, EventStreamQuery } from "./console-events";
export {
  DebugCommandParams,
  DebugCommandAccepted,
  BreakpointsBody,
  BreakpointsAccepted,
  DebugRefusal,
  DebugRefusedBody,
  DebugWaitingPoint,
} from "./console-debug";
export {
  ConsoleWorkflowRole,
  ConsoleWorkflowListQuery,
  ConsoleWorkflowItem,
  ConsoleWorkflowList,
  ConsoleWorkflowCreateBody,
  ConsoleWorkflowUpdateBody,
  ConsoleSharee,
  ConsoleWorkflowDetail,
  ConsoleWorkflowVariable,
  ConsoleWorkflowLayout,
  ConsoleLayoutBody,
  MAX_LAYOUT_POSITIONS,
  WorkflowIssueView,
  WorkflowInvalidBody,
  ConsoleWorkflowVersionParams,
  ConsoleWorkflowVersionItem,
  ConsoleWorkflowVersionList,
  ConsoleWorkflowVersion,
  ConsoleWorkflowDiffQuery,
  DiffLine,
  ConsoleWorkflowDiff,
  ConsoleSharingBody,
  ConsoleSharingResponse,
  VersionConflictBody,
} from "./console-workflows";
export { ConsoleExecutionListQuery, ConsoleExecutionList, StepParams, ConsoleStepDetail } from "./console-lists";
export {
  MAX_USAGE_DAYS,
  MAX_KEY_DAYS,
  CreateKeyBody,
  ApiKeyView,
  CreatedApiKey,
  ApiKeyList,
  SecretNameParams,
  PutSecretBody,
  SecretView,
  SecretList,
  PasswordBody,
  PasswordChanged,
  UsageQuery,
  UsageView,
} from "./console-account";
