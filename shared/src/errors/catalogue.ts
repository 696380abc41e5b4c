/**
 * The one error catalogue: every error the service reports has a stable code, the HTTP status
 * it maps to at the edge, and what it means. Every error answer of the edge carries its code in
 * `code` beside `error`. docs/errors.md's table is generated from it (`npm run docs`; a test
 * fails when it is stale), so a code is never added without its documentation.
 */
export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: {
    status: 400,
    doc: "A request body, path, query or message failed validation; `details` lists each problem. Also a request the HTTP layer refuses as malformed (a bad URL or Content-Length: 400; a path segment over 512 characters: 414; headers too large: 431; too slow to arrive: 408), which keeps that status.",
  },
  WORKFLOW_INVALID: {
    status: 400,
    doc: "The workflow YAML is invalid; `details` lists each error with its path, line and column.",
  },
  UNAUTHORIZED: {
    status: 401,
    doc: "No valid API key with the scope the endpoint needs (missing, malformed, unknown, revoked, expired, lacking the scope), or a bad or expired download signature, or a webhook trigger whose key is not the bound one or whose signature does not match. Always the same answer; the reason goes to the audit log.",
  },
  ACCOUNT_INACTIVE: {
    status: 403,
    doc: "The account (the API key's owner, the webhook's owner or the console user) is deactivated or locked.",
  },
  LOGIN_FAILED: {
    status: 401,
    doc: "Console login: the email or the password is wrong (the answer never says which).",
  },
  SESSION_REQUIRED: {
    status: 401,
    doc: "A console endpoint was called without a valid console session cookie (missing, unknown, expired or logged out).",
  },
  PASSWORD_INCORRECT: {
    status: 403,
    doc: "Console password change: `current` is not the account's password; nothing was changed.",
  },
  CSRF_FAILED: {
    status: 403,
    doc: "A state-changing console request lacks the session's `X-CSRF-Token`, or carries another one.",
  },
  PLAN_LIMIT: {
    status: 403,
    doc: "The account's plan does not allow this: webhook triggers need Pro or higher, and each plan caps its webhooks (Free 0, Pro 3, Team 10) and the workflows an account owns (Free 100, Pro 1,000, Team 5,000, Enterprise 20,000: a new one past them is refused until some are deleted or the plan changes); the message names the plan, the limit and, for workflows, how many the account owns.",
  },
  SOURCE_NOT_ALLOWED: {
    status: 403,
    doc: "A webhook trigger came from an address outside the webhook's source allow-list.",
  },
  FORBIDDEN: {
    status: 403,
    doc: "The workflow is visible to the caller, but only as a viewer: starting, cancelling and deciding approvals need owner or editor.",
  },
  NOT_FOUND: {
    status: 404,
    doc: "The resource does not exist or is not visible to the caller, or no route has this method and path.",
  },
  CONFLICT: { status: 409, doc: "The resource is in a state that does not allow the request." },
  CAS_CONFLICT: { status: 409, doc: "A compare-and-set write lost against a concurrent writer; reload and retry." },
  ALREADY_EXISTS: { status: 409, doc: "A record with this id already exists." },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    doc: "The request body is over the limit (1 MB), or a pinned step output is over its own (64 KiB a pin, 256 KiB all of a workflow's pins; see Pinned data in docs/console.md), or a workflow is too large to store: its YAML and its parse must fit one NATS message together (max_payload, 1 MB by default: a YAML of about 500 KB at most; the message says its size and the limit), or a start's inputs leave its execution's record no room for its steps' results (about 600 KB of inputs as JSON at the default max_payload; nothing is started).",
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, doc: "The request body is not `application/json`." },
  RANGE_NOT_SATISFIABLE: { status: 416, doc: "A download's `Range` lies outside the file." },
  RATE_LIMITED: {
    status: 429,
    doc: "The key's per-minute or per-day quota is used up; the body and `Retry-After` say until when.",
  },
  LOGIN_THROTTLED: {
    status: 429,
    doc: "Console login: too many failed logins for this email from this client address, or from this address in all, within the window; the password was not checked. The body's `retryAfterSeconds` and `Retry-After` say when the window ends (docs/webhooks.md, Login throttling).",
  },
  WEBHOOK_THROTTLED: {
    status: 429,
    doc: "Webhook trigger (HMAC mode): this client address sent this webhook more wrong signatures within the minute than an edge process takes (`WF_WEBHOOK_SIGNATURE_FAILURES_PER_MINUTE`, 20); the request was refused before its body was read, whatever its signature. The body's `window` (`minute`) and `limit` name the budget, its `retryAfterSeconds` and `Retry-After` say when the minute ends (docs/webhooks.md#unauthenticated-floods).",
  },
  EVENT_STREAMS_LIMIT: {
    status: 429,
    doc: "Console: you have as many event streams (Server-Sent Events) open on this edge process as one user may (`WF_CONSOLE_EVENT_STREAMS`, 16); nothing was opened. Close one (another tab or client): its place is free at once (docs/api.md#following-events).",
  },
  DOWNLOADS_LIMIT: {
    status: 429,
    doc: "Download: as many downloads of the artifact owner's files are in progress on this edge process as one owner's may be (`WF_ARTIFACT_DOWNLOADS`, 16), whoever holds their URLs; nothing was sent. Retry once one has finished (docs/api.md#artifacts-and-downloads).",
  },
  UNAVAILABLE: {
    status: 503,
    doc: "NATS or the store did not answer in time; nothing was started. Retry with backoff.",
  },
  PASSWORD_CHECKS_BUSY: {
    status: 503,
    doc: "Console login or password change: this edge process has as many password checks (scrypt) running and waiting as it takes (`WF_PASSWORD_HASH_CONCURRENCY`, `WF_PASSWORD_HASH_QUEUE`); nothing was checked. Retry after `Retry-After` seconds.",
  },
  CONSOLE_NOT_BUILT: {
    status: 503,
    doc: "The console app is not built in `WF_CONSOLE_DIR`: run `npm run build:console` (`npm start` builds it).",
  },
  CONFIG_INVALID: {
    status: 500,
    doc: "An environment variable has a value the service cannot use; the message names it.",
  },
  INTERNAL: {
    status: 500,
    doc: "An unexpected failure inside the service; the answer says no more, the service log has the details. Not the caller's fault: retrying may help, and a persistent one is a bug to report.",
  },
} as const satisfies Record<string, { status: number; doc: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Whether `code` is one of the catalogue's (a code that came over the wire). */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CATALOGUE, code);
}
