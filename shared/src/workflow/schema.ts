import { z } from "zod";
import { cronProblem } from "./cron";
import { isWholeTemplate } from "./expressions-check";
import { didYouMean } from "./suggest";
import { VARIABLE_TYPES, describeValue, isPlainObject, matchesVariableType, typeNoun } from "./value-types";
import { parseEgressAllowEntry } from "../config/egress-allow";

export const STEP_TYPES = ["code", "llm", "agent", "transform", "foreach", "parallel", "wait", "workflow"] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const CODE_LANGUAGES = ["python", "javascript", "typescript", "bash", "ruby", "lua", "cli"] as const;
export const CodeLanguageSchema = z.enum(CODE_LANGUAGES);
export type CodeLanguage = z.output<typeof CodeLanguageSchema>;

export const STEP_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const NAME_RULE = "start with a letter or `_` and use only letters, digits, `_` and `-`";
// Variables become WF_VAR_<name> environment variables and `vars.<name>` paths, so no `-`.
const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Object-level checks normally run only when every field already parsed; these run on any
 * mapping so that one parse reports all of a step's mistakes at once. Their callbacks therefore
 * read fields defensively.
 */
const ON_ANY_MAPPING = { when: (payload: { value: unknown }) => isPlainObject(payload.value) };

export const JsonValueSchema = z
  .json()
  .meta({ id: "JsonValue", description: "Any YAML/JSON value; `{{ }}` templates inside strings are evaluated." });
export type JsonValue = z.output<typeof JsonValueSchema>;

export const TemplateOrListSchema = z.union([
  z
    .string()
    .refine(isWholeTemplate, "must be a list or one whole `{{ … }}` template that yields a list, e.g. \"{{ steps.fetch.output.rows }}\""),
  z.array(JsonValueSchema),
]);

function isIsoDateTime(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(text);
  if (!match || Number.isNaN(Date.parse(text))) return false;
  // Date.parse rolls 2030-02-31 over into March instead of rejecting it.
  const [year, month, day] = match.slice(1, 4).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

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

// ---------------------------------------------------------------------------------------------
// Modifiers

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
    timeout: z.int().positive().describe("Seconds; an approval still pending then is rejected."),
    groups: z.array(ApprovalGroupSchema).optional(),
  })
  .meta({ id: "ManualApproval" });
export type ManualApproval = z.output<typeof ManualApprovalSchema>;

const stepCommon = {
  name: z.string().regex(STEP_NAME_PATTERN, `step names must ${NAME_RULE}`).describe("Unique in the whole file."),
  description: z.string().optional(),
  condition: z.string().min(1).optional().describe("A bare JSONata expression; the step is skipped when it is false."),
  retry: RetryPolicySchema.optional(),
  timeout: z.number().positive().optional().describe("Seconds."),
  manual_approval: ManualApprovalSchema.optional(),
  input: JsonValueSchema.optional(),
};

// ---------------------------------------------------------------------------------------------
// Steps

interface CodeSourceFields {
  language?: unknown;
  code?: unknown;
  command?: unknown;
}

function checkCodeSource(step: CodeSourceFields, ctx: z.RefinementCtx): void {
  const language = step.language;
  if (typeof language !== "string" || !(CODE_LANGUAGES as readonly string[]).includes(language)) return;
  if (language === "cli") {
    if (step.command === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["command"],
        message: "a cli step needs `command`: the program and its arguments as a list, e.g. [git, status]",
      });
    }
    if (step.code !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["code"],
        params: { at: "key" },
        message: "a cli step runs `command` without a shell and takes no `code`: remove `code`",
      });
    }
    return;
  }
  if (step.code === undefined) {
    ctx.addIssue({ code: "custom", path: ["code"], message: `a ${language} step needs \`code\`: the script to run` });
  }
  if (step.command !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["command"],
      params: { at: "key" },
      message: "`command` is only for `language: cli`: remove it, or switch the language to cli",
    });
  }
}

function checkEgressEntry(entry: string, ctx: z.RefinementCtx): void {
  const parsed = parseEgressAllowEntry(entry);
  if (typeof parsed === "string") ctx.addIssue({ code: "custom", message: parsed });
}

export const CodeStepSchema = z
  .strictObject({
    ...stepCommon,
    type: z.literal("code"),
    language: CodeLanguageSchema,
    code: z.string().optional().describe("The script; required for every language but cli."),
    command: z.array(z.string()).min(1).optional().describe("cli only: the argv, run without a shell."),
    network: z
      .union([
        z.boolean(),
        z.strictObject({
          allow: z
            .array(z.string().superRefine(checkEgressEntry))
            .min(1)
            .describe("Host names, `*.` patterns, addresses or CIDR ranges, each with an optional `:port`: all the step may reach."),
        }),
      ])
      .optional()
      .describe("The step's way out, through the egress proxy: `true` for what the service's policy allows, `{ allow: [...] }` for less. Unset or false: none."),
  })
  .superRefine(checkCodeSource, ON_ANY_MAPPING);
export type CodeStep = z.output<typeof CodeStepSchema>;

export const LlmStepSchema = z.strictObject({
  ...stepCommon,
  type: z.literal("llm"),
  model: z.string().min(1),
  prompt: z.string().min(1),
  system: z.string().optional(),
  temperature: z.number().min(0).optional(),
  max_tokens: z.int().min(1).optional(),
  output_schema: z
    .record(z.string(), JsonValueSchema)
    .optional()
    .describe(
      "A JSON Schema the answer must satisfy: the answer is parsed as JSON and validated (the provider's structured-output mode is used where it has one), with one repair attempt; the output is the parsed value.",
    ),
});
export type LlmStep = z.output<typeof LlmStepSchema>;

export const AgentStepSchema = z.strictObject({
  ...stepCommon,
  type: z.literal("agent"),
  agent: z.string().min(1).describe("The name of an entry of the top-level `agents`."),
  prompt: z.string().min(1),
});
export type AgentStep = z.output<typeof AgentStepSchema>;

export const TransformStepSchema = z.strictObject({
  ...stepCommon,
  type: z.literal("transform"),
  output: JsonValueSchema,
});
export type TransformStep = z.output<typeof TransformStepSchema>;

const ForeachStepHead = z.strictObject({
  ...stepCommon,
  type: z.literal("foreach"),
  items: TemplateOrListSchema,
  concurrency: z.int().min(1).default(1),
});
export const ForeachStepSchema = ForeachStepHead.extend({
  get steps(): z.ZodArray<z.ZodType<Step>> {
    return z.array(StepSchema).min(1);
  },
});
export type ForeachStep = z.output<typeof ForeachStepHead> & { steps: Step[] };

const ParallelStepHead = z.strictObject({
  ...stepCommon,
  type: z.literal("parallel"),
});
export const ParallelStepSchema = ParallelStepHead.extend({
  get branches(): z.ZodRecord<z.ZodString, z.ZodArray<z.ZodType<Step>>> {
    return z
      .record(z.string().regex(STEP_NAME_PATTERN, `branch names must ${NAME_RULE}`), z.array(StepSchema).min(1))
      .refine((branches) => Object.keys(branches).length > 0, "a parallel step needs at least one branch");
  },
});
export type ParallelStep = z.output<typeof ParallelStepHead> & { branches: Record<string, Step[]> };

interface WaitFields {
  seconds?: unknown;
  until?: unknown;
}

function checkWaitTarget(step: WaitFields, ctx: z.RefinementCtx): void {
  if (step.seconds !== undefined && step.until !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["until"],
      params: { at: "key" },
      message: "a wait step takes `seconds` or `until`, not both: remove one",
    });
  } else if (step.seconds === undefined && step.until === undefined) {
    ctx.addIssue({
      code: "custom",
      path: [],
      message: "a wait step needs `seconds` (how long to wait) or `until` (an ISO-8601 time)",
    });
  }
}

export const WaitStepSchema = z
  .strictObject({
    ...stepCommon,
    type: z.literal("wait"),
    seconds: z.number().min(0).optional(),
    until: z
      .string()
      .refine(
        (text) => text.includes("{{") || isIsoDateTime(text),
        "`until` must be an ISO-8601 date-time with a zone, e.g. 2030-01-31T09:00:00Z, or a `{{ }}` template",
      )
      .optional(),
  })
  .superRefine(checkWaitTarget, ON_ANY_MAPPING);
export type WaitStep = z.output<typeof WaitStepSchema>;

export const WorkflowCallStepSchema = z.strictObject({
  ...stepCommon,
  type: z.literal("workflow"),
  workflow: z.string().min(1).describe("The id of the workflow to run."),
  inputs: z.record(z.string(), JsonValueSchema).optional(),
});
export type WorkflowCallStep = z.output<typeof WorkflowCallStepSchema>;

export type Step =
  | CodeStep
  | LlmStep
  | AgentStep
  | TransformStep
  | ForeachStep
  | ParallelStep
  | WaitStep
  | WorkflowCallStep;

/** One schema per step type: the unknown-key messages use them to say which type owns a key. */
export const STEP_SCHEMAS = {
  code: CodeStepSchema,
  llm: LlmStepSchema,
  agent: AgentStepSchema,
  transform: TransformStepSchema,
  foreach: ForeachStepSchema,
  parallel: ParallelStepSchema,
  wait: WaitStepSchema,
  workflow: WorkflowCallStepSchema,
} as const satisfies Record<StepType, z.ZodObject>;

export const StepSchema: z.ZodType<Step> = z
  .discriminatedUnion("type", [
    CodeStepSchema,
    LlmStepSchema,
    AgentStepSchema,
    TransformStepSchema,
    ForeachStepSchema,
    ParallelStepSchema,
    WaitStepSchema,
    WorkflowCallStepSchema,
  ])
  .meta({ id: "Step" });

// ---------------------------------------------------------------------------------------------
// Top level

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

function checkMcpTransport(server: { url?: unknown; command?: unknown; headers?: unknown }, ctx: z.RefinementCtx): void {
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
      .refine((text) => text.includes("{{") || isHttpUrl(text), "`url` must be an http(s) URL, e.g. http://host:8931/mcp")
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
      ctx.addIssue({ code: "custom", message: `unknown time zone \`${name}\`${hint}: use an IANA name such as UTC or Europe/Berlin` });
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
      z.string().regex(VARIABLE_NAME_PATTERN, "variable names must start with a letter or `_` and use only letters, digits and `_`"),
      VariableDefSchema,
    )
    .optional()
    .describe("The workflow's inputs; code steps see them as WF_VAR_<name>."),
  agents: z.array(AgentDefSchema).optional(),
  max_cost: z
    .number()
    .positive()
    .optional()
    .describe("Budget of one execution in USD: an LLM call is not made once the calls so far cost this much, and the execution fails."),
  triggers: z.array(TriggerSchema).optional(),
  steps: z.array(StepSchema).min(1),
});
export type Workflow = z.output<typeof WorkflowSchema>;
