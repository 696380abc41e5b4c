import { z } from "zod";
import { cronProblem } from "./cron";
import { JsonValueSchema, ON_ANY_MAPPING } from "./schema-basics";
import { StepSchema } from "./step-types";
import { didYouMean } from "./suggest";
import { VARIABLE_TYPES, describeValue, matchesVariableType, typeNoun } from "./value-types";

// Variables become WF_VAR_<name> environment variables and `vars.<name>` paths, so no `-`.
const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

const VariableTypeSchema = z.enum(VARIABLE_TYPES);

const DEFAULT_EXAMPLES: Record<(typeof VARIABLE_TYPES)[number], string> = {
  string: '"text"',
  number: "3",
  boolean: "false",
  array: "[]",
  object: "{}",
};

function checkVariableDefault(def: { type?: unknown; default?: unknown }, ctx: z.RefinementCtx): void {
  const type = VARIABLE_TYPES.find((t) => t === def.type);
  if (type === undefined || def.default === undefined || matchesVariableType(type, def.default)) return;
  ctx.addIssue({
    code: "custom",
    path: ["default"],
    message: `default is ${describeValue(def.default)} but the variable's type is ${type}: give ${typeNoun(type)} (e.g. default: ${DEFAULT_EXAMPLES[type]}) or change \`type\``,
  });
}

export const VariableDefSchema = z
  .strictObject({
    type: VariableTypeSchema,
    required: z.boolean().optional(),
    default: JsonValueSchema.optional().describe("Must be a value of `type`."),
    description: z.string().optional(),
  })
  .superRefine(checkVariableDefault, ON_ANY_MAPPING)
  .meta({ id: "VariableDef" });
export type VariableDef = z.output<typeof VariableDefSchema>;

function checkMcpTransport(
  server: { url?: unknown; command?: unknown; headers?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (server.url !== undefined && server.command !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["command"],
      params: { at: "key" },
      message: "an MCP server takes `url` (HTTP) or `command` (stdio), not both: remove one",
    });
  } else if (server.url === undefined && server.command === undefined) {
    ctx.addIssue({
      code: "custom",
      path: [],
      message: "an MCP server needs `url` (streamable HTTP) or `command` (a stdio server's argv)",
    });
  } else if (server.command !== undefined && server.headers !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["headers"],
      params: { at: "key" },
      message: "`headers` apply to `url` servers only: remove them from this stdio server",
    });
  }
}

export const McpServerSchema = z
  .strictObject({
    name: z.string().min(1),
    url: z
      .string()
      .refine(
        (text) => text.includes("{{") || isHttpUrl(text),
        "`url` must be an http(s) URL, e.g. http://host:8931/mcp",
      )
      .optional(),
    headers: z.record(z.string(), z.string()).optional(),
    command: z.array(z.string()).min(1).optional(),
  })
  .superRefine(checkMcpTransport, ON_ANY_MAPPING)
  .meta({ id: "McpServer" });
export type McpServer = z.output<typeof McpServerSchema>;

export const AgentDefSchema = z
  .strictObject({
    name: z.string().min(1),
    model: z.string().min(1).describe("A provider model id; the provider is configured on the service."),
    instructions: z.string().optional(),
    max_turns: z.int().min(1).optional(),
    mcp: z.array(McpServerSchema).optional(),
  })
  .meta({ id: "AgentDef" });
export type AgentDef = z.output<typeof AgentDefSchema>;

export const CronSchema = z
  .string()
  .superRefine((text, ctx) => {
    const problem = cronProblem(text);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe("5 fields: minute hour day-of-month month day-of-week; or 6, with a seconds field first.");

export const ScheduleTriggerSchema = z.strictObject({
  type: z.literal("schedule"),
  cron: CronSchema,
  timezone: z
    .string()
    .superRefine((name, ctx) => {
      if (isTimeZone(name)) return;
      const hint = didYouMean(name, Intl.supportedValuesOf("timeZone"));
      ctx.addIssue({
        code: "custom",
        message: `unknown time zone \`${name}\`${hint}: use an IANA name such as UTC or Europe/Berlin`,
      });
    })
    .optional()
    .describe("The IANA time zone the cron fields are read in; UTC when unset."),
});
export type ScheduleTrigger = z.output<typeof ScheduleTriggerSchema>;

export const COMPLETION_STATES = ["COMPLETED", "FAILED", "CANCELLED", "INTERRUPTED"] as const;

export const DelayedCompletionTriggerSchema = z.strictObject({
  type: z.literal("DELAYED_COMPLETION"),
  after: z.string().min(1).describe("The id of the workflow whose end starts this one."),
  on: z.array(z.enum(COMPLETION_STATES)).min(1).default(["COMPLETED"]),
  delay: z.number().min(0).describe("Seconds after the other workflow ended."),
  max_runs: z.int().min(1).optional(),
});
export type DelayedCompletionTrigger = z.output<typeof DelayedCompletionTriggerSchema>;

export const TriggerSchema = z
  .discriminatedUnion("type", [ScheduleTriggerSchema, DelayedCompletionTriggerSchema])
  .meta({ id: "Trigger" });
export type Trigger = z.output<typeof TriggerSchema>;

export const WorkflowSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  variables: z
    .record(
      z
        .string()
        .regex(
          VARIABLE_NAME_PATTERN,
          "variable names must start with a letter or `_` and use only letters, digits and `_`",
        ),
      VariableDefSchema,
    )
    .optional()
    .describe("The workflow's inputs; code steps see them as WF_VAR_<name>."),
  agents: z.array(AgentDefSchema).optional(),
  max_cost: z
    .number()
    .positive()
    .optional()
    .describe(
      "Budget of one execution in USD: an LLM call is not made once the calls so far cost this much, and the execution fails.",
    ),
  triggers: z.array(TriggerSchema).optional(),
  steps: z.array(StepSchema).min(1),
});
export type Workflow = z.output<typeof WorkflowSchema>;
