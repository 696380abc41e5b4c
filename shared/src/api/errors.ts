import { z } from "zod";
import { ExecutionStatus } from "../execution/snapshot";

/** Every error answer: a JSON object with an `error` string. */
export const ErrorBody = z.object({ error: z.string() });

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

/** 409 of the result endpoint before the execution reached COMPLETED, FAILED or CANCELLED. */
export const ResultNotReadyBody = ErrorBody.extend({ status: ExecutionStatus });
