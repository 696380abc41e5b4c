import { z } from "zod";
import { JsonValueSchema, NAME_RULE, STEP_NAME_PATTERN, TemplateOrListSchema } from "./schema-basics";

export const RetryPolicySchema = z
  .strictObject({
    max_attempts: z.int().min(1).describe("Attempts in total, the first one included."),
    backoff: z.enum(["fixed", "exponential", "linear"]).default("exponential"),
    initial_delay: z.number().min(0).default(1).describe("Seconds before the second attempt."),
    max_delay: z.number().min(0).default(60).describe("Upper bound of any delay, in seconds."),
  })
  .meta({ id: "RetryPolicy" });
export type RetryPolicy = z.output<typeof RetryPolicySchema>;

export const ApprovalColumnSchema = z.strictObject({
  key: z.string().min(1),
  title: z.string(),
  type: z.enum(["string", "number", "boolean"]),
  editable: z.boolean().optional(),
});
export type ApprovalColumn = z.output<typeof ApprovalColumnSchema>;

export const ApprovalGroupSchema = z.strictObject({
  name: z.string().min(1).describe("The approved rows reach later steps as `approval.<name>`."),
  title: z.string(),
  items: TemplateOrListSchema,
  columns: z.array(ApprovalColumnSchema).min(1),
});
export type ApprovalGroup = z.output<typeof ApprovalGroupSchema>;

export const ManualApprovalSchema = z
  .strictObject({
    message: z.string().min(1),
    timeout: z
      .int()
      .positive()
      .describe("Seconds; an approval still pending then becomes EXPIRED, and the gated step does not run."),
    groups: z.array(ApprovalGroupSchema).optional(),
  })
  .meta({ id: "ManualApproval" });
export type ManualApproval = z.output<typeof ManualApprovalSchema>;

/** The fields every step takes, whatever its type: its name and the modifiers. */
export const stepCommon = {
  name: z.string().regex(STEP_NAME_PATTERN, `step names must ${NAME_RULE}`).describe("Unique in the whole file."),
  description: z.string().optional(),
  condition: z.string().min(1).optional().describe("A bare JSONata expression; the step is skipped when it is false."),
  retry: RetryPolicySchema.optional(),
  timeout: z.number().positive().optional().describe("Seconds."),
  manual_approval: ManualApprovalSchema.optional(),
  input: JsonValueSchema.optional(),
};
