export {
  EXECUTION_STATUSES,
  ExecutionStatus,
  TERMINAL_STATUSES,
  END_EVENT_TYPES,
  endEventType,
  endedStatus,
  StepStatus,
  TriggerSource,
  Usage,
  ZERO_USAGE,
  ToolCallRecord,
  StepState,
  ExecutionEvent,
  Holder,
  ExecutionSnapshot,
  StepTest,
  type StepTestRequest,
  ParentRef,
  MAX_CALL_DEPTH,
  childDepth,
} from "./snapshot";
export { newId, derivedId, isSubjectToken } from "./ids";
export { START_LANES, laneOf, ownerLane, ownerLanes, inOwnerLane, inLane } from "./start-lanes";
export {
  checkStart,
  firstSnapshot,
  unstoredDefinition,
  type CheckedStart,
  type StartRequestParsed,
} from "./first-snapshot";
export { definitionJson, parseDefinition, sharedDefinition, type ParsedDefinition } from "./parsed-definitions";
export { eventJson } from "./event-json";
export {
  planRerun,
  sourceInputs,
  stepHash,
  type RerunPlan,
  type RerunPlanResult,
  type RerunProblem,
} from "./rerun-plan";
export { CostEstimate } from "./cost-estimate";
export { DEFAULT_MAX_PAYLOAD, recordRoom, resultLimits, type ResultLimits } from "./result-limits";
export { planStepTest, type StepTestPlan, type StepTestPlanResult, type StepTestProblem } from "./step-test-plan";
export {
  BREAKPOINT_TYPES,
  Breakpoint,
  DEBUG_COMMANDS,
  DEBUG_IDLE_DEFAULT_S,
  DEBUG_IDLE_MAX_S,
  DEBUG_EDIT_MAX_BYTES,
  DebugClaim,
  DebugCommandBody,
  DebugEdit,
  BREAKPOINT_TYPE_AT,
  DebugRequest,
  DebugState,
  PauseContext,
  PausePhase,
  PauseRecord,
  ResumedFrom,
  idleDue,
  newDebugState,
  hitPauses,
  mayPauseAt,
  stepMatches,
  withBreakpointIds,
  type BreakpointInput,
  type BreakpointType,
  type DebugCommandName,
} from "./debug";
export {
  adoptBreakpoints,
  changeBreakpoints,
  replaceBreakpoints,
  sameBreakpoint,
  type BreakpointsChange,
  type BreakpointsChangeResult,
} from "./debug-breakpoints";
export { waitingPoints, type WaitingPoints } from "./debug-waiting";
export { ChatMessage, ConversationInput, parseConversation, ToolCall, ToolResult } from "./conversation-input";
export {
  claimPause,
  releaseClaim,
  standingClaim,
  type ClaimResult,
  type ClaimOptions,
  type DebugCommandRequest,
} from "./debug-claim";
