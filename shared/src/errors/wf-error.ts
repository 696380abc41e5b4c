import { ERROR_CATALOGUE, type ErrorCode } from "./catalogue";

/** Base class of every error the service raises on purpose: carries a catalogue code. */
export class WfError extends Error {
  readonly code: ErrorCode;
  readonly details: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = "WfError";
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

/** A compare-and-set write lost: another writer moved first. */
export class CasConflictError extends WfError {
  constructor(key: string) {
    super("CAS_CONFLICT", `concurrent update of ${key}`);
    this.name = "CasConflictError";
  }
}

export class AlreadyExistsError extends WfError {
  constructor(key: string) {
    super("ALREADY_EXISTS", `${key} already exists`);
    this.name = "AlreadyExistsError";
  }
}

/** A record that would not fit in one message of the store (NATS's max_payload): refused before it is written. */
export class RecordTooLargeError extends WfError {
  constructor(
    key: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(
      "PAYLOAD_TOO_LARGE",
      `${key} would take ${bytes} bytes stored, over the ${limit} a record may take (the NATS server's max_payload)`,
    );
    this.name = "RecordTooLargeError";
  }
}

export class ConfigError extends WfError {
  constructor(message: string) {
    super("CONFIG_INVALID", message);
    this.name = "ConfigError";
  }
}
