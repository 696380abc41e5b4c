import { z } from "zod";
import { Id } from "./common";
import { MAX_JSON_DEPTH } from "./json-depth";

/** The output of a step test with `estimateOnly`. */
export { CostEstimate } from "../execution/cost-estimate";

/** POST /api/console/workflows/{id}/step-tests (docs/rerun.md#testing-one-step). */
export const StepTestBody = z.strictObject({
  step: z
    .string()
    .min(1, "must not be empty")
    .max(128, "must have at most 128 characters")
    .describe("The step to run, alone: the execution ends with it. A step inside a foreach runs in one item of it."),
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
  itemIndexes: z
    .array(z.number().int().min(0, "must be 0 or more").max(1_000_000, "must be at most 1000000"))
    .max(16, "must have at most 16 indexes")
    .optional()
    .describe(
      "For a step inside a foreach: the item it runs in, one index per foreach holding it, outermost first; default 0 for each. `item` is that item of the foreach's `items`, evaluated in the test's context.",
    ),
  inputs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      `Workflow variables by name; default: fromExecution's, or the workflow's defaults. Objects and arrays may nest at most ${MAX_JSON_DEPTH} levels deep, the body being the first.`,
    ),
  estimateOnly: z
    .boolean()
    .optional()
    .describe(
      "An `llm` or `agent` step only: render its call in the same context and answer what it would cost (the execution's output, a CostEstimate) without calling the model.",
    ),
  usePins: z
    .boolean()
    .default(true)
    .describe(
      "Whether the workflow's pinned outputs stand in for the steps before `step` that have one (over what fromExecution recorded); false: pins are ignored.",
    ),
});
export type StepTestBody = z.infer<typeof StepTestBody>;

export const StepTestResponse = z.object({
  executionId: z.string().describe("The test's execution (PENDING, triggerSource step_test); poll it like any other."),
  step: z.string(),
  path: z
    .string()
    .describe(
      "Where the step's run is recorded in the test's `steps`: its name, or `loop[2].name` inside a foreach item.",
    ),
  itemIndexes: z.array(z.number().int()).describe("The foreach item it runs in, one index per foreach holding it."),
  contextFrom: z.string().nullable().describe("The execution whose recorded steps are the context, or null."),
  reusedSteps: z
    .array(z.string())
    .describe(
      "Steps before `step` taken from contextFrom as recorded, in order; none of them runs. Top-level ones by name, then those before it inside the foreach item or parallel branch holding it, by path (`loop[2].fetch`).",
    ),
  pinnedSteps: z
    .array(z.string())
    .describe(
      "Top-level steps before `step` whose pinned output was taken (marked `pinned`), in order; none of them runs.",
    ),
});
export type StepTestResponse = z.infer<typeof StepTestResponse>;
