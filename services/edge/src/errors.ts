import {
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  RequestError,
  TimeoutError,
} from "@nats-io/nats-core";
import { WfError, type ErrorCode } from "@wf/shared/errors";

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
  body: { error: string; details?: unknown } & Record<string, unknown>;
}

/** Fastify's own errors (body parsing, limits) that have a code of their own in the catalogue. */
const FRAMEWORK_ERRORS: Record<number, [ErrorCode, string]> = {
  413: ["PAYLOAD_TOO_LARGE", "request body too large: the limit is 1 MB"],
  415: ["UNSUPPORTED_MEDIA_TYPE", "unsupported content type: send the body as application/json"],
};

/**
 * Every error answer is `{error, details?}` (decisions.md, Errors). WfErrors answer with their
 * catalogue status; Fastify's parsing errors keep theirs; NATS or MongoDB not answering is 503;
 * anything else is a 500 whose details stay in the log.
 */
export function errorAnswer(err: unknown): ErrorAnswer {
  const known = asWfError(err);
  if (known instanceof AnswerError) return { status: known.status, body: { ...known.extra, error: known.message } };
  if (known) {
    const details = known.details === undefined ? {} : { details: known.details };
    return { status: known.status, body: { error: known.message, ...details } };
  }
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === "number" && status >= 400 && status < 500) return { status, body: { error: (err as Error).message } };
  return { status: 500, body: { error: "internal error" } };
}

function asWfError(err: unknown): WfError | null {
  if (err instanceof WfError) return err;
  if (isUnavailable(err)) return new WfError("UNAVAILABLE", "service temporarily unavailable: retry with backoff");
  const framework = FRAMEWORK_ERRORS[(err as { statusCode?: number } | null)?.statusCode ?? 0];
  return framework ? new WfError(...framework) : null;
}

/** NATS or MongoDB not answering, also when wrapped (JetStream reports a missing stream as a wrapped "no responders"). */
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
    /^Mongo(Network|ServerSelection|NotConnected)/.test(err.name)
  );
}
