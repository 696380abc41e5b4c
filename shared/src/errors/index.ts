export { ERROR_CATALOGUE, isErrorCode, type ErrorCode } from "./catalogue";
export { WfError, CasConflictError, AlreadyExistsError, ConfigError, RecordTooLargeError } from "./wf-error";
export { TerminalError, CorruptRecordError } from "./terminal";
