import { z } from "zod";
import { Id } from "./common";
import { MAX_JSON_DEPTH } from "./json-depth";

/** POST /api/console/workflows/{id}/step-tests (docs/rerun.md#testing-one-step). */
export const StepTestBody = z.strictObject({
  step: z
    .string()
    .min(1, "must not be empty")
    .max(128, "must have at most 128 characters")
    .describe("The top-level step to run, alone: the execution ends with it."),
  yaml: z
    .string()
    .min(1, "must not be empty")
    .optional()
    .describe(
      "The workflow to test (YAML), saved or not, such as the editor's text; default: the latest saved version. It is not stored.",
    ),
  fromExecution: Id.optional().describe(
    "A finished execution of this workflow: the steps before `step` that it completed are taken from it as recorded (even if their definitions changed since), and its variables are the default inputs. Without it the step sees only variables.",
  ),
  inputs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      `Workflow variables by name; default: fromExecution's, or the workflow's defaults. Objects and arrays may nest at most ${MAX_JSON_DEPTH} levels deep, the body being the first.`,
    ),
});
export type StepTestBody = z.infer<typeof StepTestBody>;

export const StepTestResponse = z.object({
  executionId: z.string().describe("The test's execution (PENDING, triggerSource step_test); poll it like any other."),
  step: z.string(),
  contextFrom: z.string().nullable().describe("The execution whose recorded steps are the context, or null."),
  reusedSteps: z
    .array(z.string())
    .describe("Top-level steps before `step` taken from contextFrom as recorded, in order; none of them runs."),
});
export type StepTestResponse = z.infer<typeof StepTestResponse>;
