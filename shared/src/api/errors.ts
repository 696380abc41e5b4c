import { z } from "zod";
import { ERROR_CATALOGUE, type ErrorCode } from "../errors/catalogue";
import { ExecutionStatus } from "../execution/snapshot";

const CODES = Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]];

/**
 * The catalogue's stable codes, one schema (`ErrorCode` in the OpenAPI document's components)
 * described code by code with its status and meaning.
 */
export const ErrorCodeSchema = z.enum(CODES).meta({
  id: "ErrorCode",
  description:
    "The stable error code, from the service's error catalogue: clients branch on it (the `error` text may change). " +
    "Each code always answers with the HTTP status shown (VALIDATION_FAILED also with the status of a malformed request the HTTP layer refuses):\n" +
    CODES.map((code) => `- \`${code}\` (${ERROR_CATALOGUE[code].status}): ${ERROR_CATALOGUE[code].doc}`).join("\n"),
  "x-enum-descriptions": CODES.map((code) => ERROR_CATALOGUE[code].doc),
});

/** Every error answer: a JSON object with an `error` message and the catalogue's `code`. */
export const ErrorBody = z.object({
  error: z.string().describe("What went wrong, for people; the wording may change."),
  code: ErrorCodeSchema,
});

export const FieldProblem = z.object({
  in: z.enum(["path", "query", "body"]),
  /** Dotted path of the field within its part, e.g. `inputs.count`; empty for the whole part. */
  field: z.string(),
  message: z.string(),
});
export type FieldProblem = z.infer<typeof FieldProblem>;

export const ValidationErrorBody = ErrorBody.extend({ details: z.array(FieldProblem) });

export const RateLimitWindow = z.enum(["minute", "day"]);
export type RateLimitWindow = z.infer<typeof RateLimitWindow>;

export const RateLimitErrorBody = ErrorBody.extend({
  window: RateLimitWindow,
  limit: z.number().int(),
  retryAfterSeconds: z.number().int(),
});
export type RateLimitErrorBody = z.infer<typeof RateLimitErrorBody>;

/** A refusal to retry later without a quota window: a throttled console login, a full queue of password checks. */
export const RetryAfterErrorBody = ErrorBody.extend({ retryAfterSeconds: z.number().int() });

/** 409 of the result endpoint before the execution reached COMPLETED, FAILED or CANCELLED. */
export const ResultNotReadyBody = ErrorBody.extend({ status: ExecutionStatus });
