/**
 * The one error catalogue: every error the service reports has a stable code, the HTTP status
 * it maps to at the edge, and a message template. Docs are generated from (and tested against)
 * this table, so a code is never added without its documentation.
 */
export const ERROR_CATALOGUE = {
  VALIDATION_FAILED: { status: 400, doc: "A request body, query or message failed validation; `details` lists each problem." },
  WORKFLOW_INVALID: { status: 400, doc: "The workflow YAML is invalid; `details` lists each error with its path, line and column." },
  INPUT_INVALID: { status: 400, doc: "An execution input names no workflow variable, has the wrong type, or a required variable is missing." },
  NOT_FOUND: { status: 404, doc: "The resource does not exist or is not visible to the caller." },
  CONFLICT: { status: 409, doc: "The resource is in a state that does not allow the request." },
  CAS_CONFLICT: { status: 409, doc: "A compare-and-set write lost against a concurrent writer; reload and retry." },
  ALREADY_EXISTS: { status: 409, doc: "A record with this id already exists." },
  CONFIG_INVALID: { status: 500, doc: "An environment variable has a value the service cannot use; the message names it." },
  EXPRESSION_FAILED: { status: 400, doc: "A `{{ … }}` template or `condition` failed to evaluate; the message names the step and the expression." },
  STEP_FAILED: { status: 500, doc: "A step failed; the message carries the step's error." },
  STEP_TIMEOUT: { status: 500, doc: "A step exceeded its `timeout`." },
  NOT_IMPLEMENTED: { status: 501, doc: "The workflow uses a feature this version of the service does not run yet." },
  STORE_UNAVAILABLE: { status: 503, doc: "The storage backend did not answer." },
} as const satisfies Record<string, { status: number; doc: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
