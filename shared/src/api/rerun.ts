import { z } from "zod";
import { Usage } from "../execution/usage";
import { MAX_JSON_DEPTH } from "./json-depth";

const StepName = z.string().min(1, "must not be empty").max(128, "must have at most 128 characters");

export const RerunBody = z.strictObject({
  fromStep: StepName.describe(
    "The top-level step to rerun from: the steps before it keep what the execution recorded and do not run.",
  ),
  inputs: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      `Workflow variables by name, replacing the execution's (default: the variables it ran with). Reused outputs stay as recorded. Objects and arrays may nest at most ${MAX_JSON_DEPTH} levels deep, the body being the first.`,
    ),
  definition: z
    .string()
    .min(1, "must not be empty")
    .optional()
    .describe(
      "An edited workflow (YAML) to run instead of the one the execution ran. The steps before fromStep must be unchanged; it is stored as a new version of the workflow.",
    ),
  version: z
    .number()
    .int("must be an integer")
    .positive("must be positive")
    .optional()
    .describe(
      "A stored version of the workflow to run instead of the one the execution ran, such as the latest saved. The steps before fromStep must be unchanged in it; nothing is stored. Not with `definition`.",
    ),
});
export type RerunBody = z.infer<typeof RerunBody>;

export const RerunQuery = z.strictObject({
  dryRun: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false")
    .transform((v) => v === "true")
    .describe("true: answer the plan (200) and start nothing."),
});

const RerunFields = {
  rerunOf: z.string().describe("The execution rerun."),
  fromStep: z.string(),
  reusedSteps: z
    .array(z.string())
    .describe(
      "Top-level steps before fromStep, in order: their states are the source's, marked reused; none of them runs.",
    ),
  savedUsage: Usage.describe("Tokens and cost of the reused steps' LLM calls: what the rerun does not spend again."),
  editedSteps: z
    .array(z.string())
    .describe(
      "Reused steps that stand on a debugger's edit in the execution (a `set` of the output of the step or of a step in it, or of the input or a tool call's arguments it ran with): reused as edited, their states marked `edited`.",
    ),
};

export const RerunPlanView = z.object({
  ...RerunFields,
  rerunSteps: z.array(z.string()).describe("Top-level steps from fromStep on: they run."),
});

export const RerunResponse = z.object({
  executionId: z.string().describe("The new execution (PENDING); poll it like any other."),
  ...RerunFields,
});
