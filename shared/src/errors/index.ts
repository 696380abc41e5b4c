export { ERROR_CATALOGUE, type ErrorCode } from "./catalogue";
export {
  WfError,
  TerminalError,
  RetryableError,
  CasConflictError,
  AlreadyExistsError,
  ConfigError,
} from "./wf-error";
