export {
  EXECUTION_STATUSES,
  ExecutionStatus,
  TERMINAL_STATUSES,
  StepStatus,
  TriggerSource,
  Usage,
  ZERO_USAGE,
  ToolCallRecord,
  StepState,
  ExecutionEvent,
  Holder,
  ExecutionSnapshot,
} from "./snapshot";
export { newId, derivedId, isSubjectToken } from "./ids";
export { checkStart, firstSnapshot, type CheckedStart, type StartRequestParsed } from "./first-snapshot";
export {
  BREAKPOINT_TYPES,
  Breakpoint,
  DEBUG_COMMANDS,
  DEBUG_IDLE_DEFAULT_S,
  DEBUG_IDLE_MAX_S,
  DebugCommandBody,
  DebugEdit,
  DebugRequest,
  DebugState,
  PauseContext,
  PausePhase,
  PauseRecord,
  withBreakpointIds,
  type BreakpointInput,
  type BreakpointType,
  type DebugCommandName,
} from "./debug";
