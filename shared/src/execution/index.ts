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
