export {
  EXECUTION_STATUSES,
  ExecutionStatus,
  TERMINAL_STATUSES,
  StepStatus,
  TriggerSource,
  Usage,
  ZERO_USAGE,
  StepState,
  ExecutionEvent,
  Holder,
  ExecutionSnapshot,
} from "./snapshot";
export { newId, isSubjectToken } from "./ids";
export { checkStart, firstSnapshot, type CheckedStart, type StartRequestParsed } from "./first-snapshot";
