import { z } from "zod";
import { Id, Timestamp } from "./common";
import { MAX_JSON_DEPTH } from "./json-depth";

/** The most one pin's output may weigh, as JSON in UTF-8 (docs/console.md, Pinned data). */
export const MAX_PIN_BYTES = 64 * 1024;
/** The most all of a workflow's pins may weigh together, as JSON in UTF-8. */
export const MAX_WORKFLOW_PINS_BYTES = 256 * 1024;

export const PinParams = z.strictObject({
  id: Id,
  step: z.string().min(1, "must not be empty").max(128, "must have at most 128 characters"),
});

/** PUT /api/console/workflows/{id}/pins/{step}. */
export const PinBody = z.strictObject({
  output: z
    .unknown()
    .refine((v) => v !== undefined, "is required (any JSON value, null included)")
    .describe(
      `The output step tests take for the step instead of running it: any JSON value of at most ${MAX_PIN_BYTES / 1024} KiB, nesting at most ${MAX_JSON_DEPTH - 1} levels.`,
    ),
  from: Id.nullable()
    .optional()
    .describe("The execution of this workflow the output was taken from; null or absent: typed by hand."),
});

export const ConsolePin = z.object({
  output: z.unknown(),
  pinnedAt: Timestamp,
  from: z.string().nullable().describe("The execution the output was taken from, or null when it was typed."),
});
export type ConsolePin = z.infer<typeof ConsolePin>;

export const ConsoleWorkflowPins = z
  .record(z.string(), ConsolePin)
  .describe("Outputs pinned to top-level steps, by step name: step tests take them instead of running those steps.");
