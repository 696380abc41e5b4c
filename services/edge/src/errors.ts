import {
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  RequestError,
  TimeoutError,
} from "@nats-io/nats-core";
import { WfError, type ErrorCode } from "@wf/shared/errors";
import { isTransient } from "@wf/shared/nats";

/** A WfError whose answer carries fields beside `error` (429's window, 409's status). */
export class AnswerError extends WfError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown>,
  ) {
    super(code, message);
    this.name = "AnswerError";
  }
}

export interface ErrorAnswer {
  status: number;
  /** `code` is the catalogue's stable code: clients branch on it, never on `error`'s wording. */
  body: { error: string; code: ErrorCode; details?: unknown } & Record<string, unknown>;
}

/** Fastify's own errors (body parsing, limits) that have a code of their own in the catalogue. */
const FRAMEWORK_ERRORS: Record<number, [ErrorCode, string]> = {
  413: ["PAYLOAD_TOO_LARGE", "request body too large: the limit is 1 MB"],
  415: ["UNSUPPORTED_MEDIA_TYPE", "unsupported content type: send the body as application/json"],
};

const BAD_URL =
  "the URL is not valid percent-encoding: each % must be followed by two hexadecimal digits, encoding UTF-8";

/**
 * Every error answer is `{error, code, details?}` (docs/errors.md); an AnswerError adds its own
 * fields. WfErrors answer with their catalogue status, NATS or MongoDB not answering is 503
 * UNAVAILABLE, Fastify's 413 and 415 have codes of their own and its other 4xx (a malformed request)
 * keep their status as VALIDATION_FAILED; anything else is a 500 INTERNAL whose details stay in the log.
 */
export function errorAnswer(err: unknown): ErrorAnswer {
  const known = asWfError(err);
  if (known instanceof AnswerError)
    return { status: known.status, body: { ...known.extra, error: known.message, code: known.code } };
  if (known) {
    const details = known.details === undefined ? {} : { details: known.details };
    return { status: known.status, body: { error: known.message, code: known.code, ...details } };
  }
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) {
    // The router's words for a bad URL quote it whole, query included, where an api_key may be.
    const badUrl = status === 400 && err instanceof URIError;
    const error = badUrl ? BAD_URL : err instanceof Error ? err.message : "malformed request";
    // A 400 is documented with `details` (one problem per field): the framework's names no field.
    const details = status === 400 ? { details: [{ in: badUrl ? "path" : "body", field: "", message: error }] } : {};
    return { status, body: { error, code: "VALIDATION_FAILED", ...details } };
  }
  return { status: 500, body: { error: "internal error", code: "INTERNAL" } };
}

function asWfError(err: unknown): WfError | null {
  if (err instanceof WfError) return err;
  if (isUnavailable(err)) return new WfError("UNAVAILABLE", "service temporarily unavailable: retry with backoff");
  const framework = FRAMEWORK_ERRORS[(err as { statusCode?: number } | null)?.statusCode ?? 0];
  return framework ? new WfError(...framework) : null;
}

/**
 * NATS or MongoDB not answering, also when wrapped (JetStream reports a missing stream as a wrapped "no responders").
 */
function isUnavailable(err: unknown, depth = 0): boolean {
  if (depth > 3 || !(err instanceof Error)) return false;
  return (
    isUnavailable(err.cause, depth + 1) ||
    err instanceof TimeoutError ||
    err instanceof NoRespondersError ||
    err instanceof ClosedConnectionError ||
    err instanceof DrainingConnectionError ||
    err instanceof ConnectionError ||
    err instanceof RequestError ||
    // A cluster electing a stream's leader, or otherwise not answering for now.
    isTransient(err) ||
    /^Mongo(Network|ServerSelection|NotConnected)/.test(err.name)
  );
}
