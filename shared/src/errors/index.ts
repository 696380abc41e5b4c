export { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from "./catalogue";
export { WfError, CasConflictError, AlreadyExistsError, ConfigError } from "./wf-error";
export { TerminalError, CorruptRecordError } from "./terminal";
