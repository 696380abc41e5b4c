/**
 * The one error catalogue: every error the service reports has a stable code, the HTTP status
 * it maps to at the edge, and what it means. The README lists every code (a test checks it),
 * so a code is never added without its documentation.
 */
export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: { status: 400, doc: "A request body, query or message failed validation; `details` lists each problem." },
  WORKFLOW_INVALID: { status: 400, doc: "The workflow YAML is invalid; `details` lists each error with its path, line and column." },
  NOT_FOUND: { status: 404, doc: "The resource does not exist or is not visible to the caller." },
  CONFLICT: { status: 409, doc: "The resource is in a state that does not allow the request." },
  CAS_CONFLICT: { status: 409, doc: "A compare-and-set write lost against a concurrent writer; reload and retry." },
  ALREADY_EXISTS: { status: 409, doc: "A record with this id already exists." },
  CONFIG_INVALID: { status: 500, doc: "An environment variable has a value the service cannot use; the message names it." },
} as const satisfies Record<string, { status: number; doc: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
