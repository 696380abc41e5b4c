import { z } from "zod";
import { parseEgressAllowEntry } from "../config/egress-allow";
import { MAX_FOREACH_CONCURRENCY } from "./fan-out-bounds";
import { JsonValueSchema, NAME_RULE, ON_ANY_MAPPING, STEP_NAME_PATTERN, TemplateOrListSchema } from "./schema-basics";
import { stepCommon } from "./step-modifiers";

export const CODE_LANGUAGES = ["python", "javascript", "typescript", "bash", "ruby", "lua", "cli"] as const;
export const CodeLanguageSchema = z.enum(CODE_LANGUAGES);
export type CodeLanguage = z.output<typeof CodeLanguageSchema>;

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
            .describe(
              "Host names, `*.` patterns, addresses or CIDR ranges, each with an optional `:port`: all the step may reach.",
            ),
        }),
      ])
      .optional()
      .describe(
        "The step's way out, through the egress proxy: `true` for what the service's policy allows, `{ allow: [...] }` for less. Unset or false: none.",
      ),
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
  concurrency: z.int().min(1).default(1).describe(`Items run at once, at most ${MAX_FOREACH_CONCURRENCY}.`),
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

function isIsoDateTime(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(text);
  if (!match || Number.isNaN(Date.parse(text))) return false;
  // Date.parse rolls 2030-02-31 over into March instead of rejecting it.
  const [year, month, day] = match.slice(1, 4).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
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

/**
 * The type of each step type's steps. Written out, not inferred from the table: a container's
 * type holds `Step[]`, which TypeScript cannot follow through the table's own type.
 */
interface StepOfType {
  code: CodeStep;
  llm: LlmStep;
  agent: AgentStep;
  transform: TransformStep;
  foreach: ForeachStep;
  parallel: ParallelStep;
  wait: WaitStep;
  workflow: WorkflowCallStep;
}
export type StepType = keyof StepOfType;
export type Step = StepOfType[StepType];

/** What is known of a step type besides its fields. */
export interface StepTypeSpec<S extends Step = Step> {
  /** Its fields: one option of `StepSchema`. */
  readonly schema: z.ZodObject & z.ZodType<S>;
  /**
   * A container's step lists, in document order. A method, so that the table's entries, each
   * typed for its own step, also read as specs of any step.
   */
  children?(step: S): readonly (readonly Step[])[];
  /**
   * An attempt may end parked: the execution leaves memory until a durable timer or another
   * execution wakes it. (Any step may park besides, on a long retry backoff or behind
   * `manual_approval`: that is the modifiers' doing, not the type's.)
   */
  readonly parks: boolean;
  /**
   * An attempt acts outside the service (runs a program, calls a model or a tool), so one a
   * crash caught in flight cannot be continued, only run again, or ended INTERRUPTED where its
   * execution is not replayed. A `workflow` step's child start is not one: the child's id is
   * recorded before it is published, so a replay goes on with the same child.
   */
  readonly externalEffects: boolean;
  /** One line for the reader of the schema (it is each type's description in the JSON Schema). */
  readonly doc: string;
}

/**
 * Every step type, in the order the JSON Schema lists them. A new type is its schema, its line in
 * StepOfType and an entry here (and a kind in the executor's run/steps/): the names, the schemas'
 * union and the lookups below are derived from this table.
 */
export const STEP_TYPE_TABLE: { readonly [T in StepType]: StepTypeSpec<StepOfType[T]> } = {
  code: {
    schema: CodeStepSchema,
    parks: false,
    externalEffects: true,
    doc: "Runs a script, or with `language: cli` a program, in the sandbox: its output is what the script returns or prints.",
  },
  llm: {
    schema: LlmStepSchema,
    parks: false,
    externalEffects: true,
    doc: "One call to a model: its output is the answer's text, or the parsed value with `output_schema`.",
  },
  agent: {
    schema: AgentStepSchema,
    parks: false,
    externalEffects: true,
    doc: "A model that may call its agent's MCP tools, turn after turn, until it answers: its output is the final text.",
  },
  transform: {
    schema: TransformStepSchema,
    parks: false,
    externalEffects: false,
    doc: "Evaluates the templates in `output`: its output is the value they make.",
  },
  foreach: {
    schema: ForeachStepSchema,
    children: (step) => [step.steps],
    parks: true,
    externalEffects: false,
    doc: "Runs its `steps` once per item of `items`, `concurrency` items at a time: its output is the list of the items' outputs.",
  },
  parallel: {
    schema: ParallelStepSchema,
    children: (step) => Object.values(step.branches),
    parks: true,
    externalEffects: false,
    doc: "Runs its `branches` at once: its output maps each branch's name to the branch's last output.",
  },
  wait: {
    schema: WaitStepSchema,
    parks: true,
    externalEffects: false,
    doc: "Waits `seconds`, or until `until`, on a durable timer: its output is `{waitedUntil}` (epoch ms).",
  },
  workflow: {
    schema: WorkflowCallStepSchema,
    parks: true,
    externalEffects: false,
    doc: "Runs a stored workflow as a child execution and waits for its end: its output is the child's output.",
  },
};

export const STEP_TYPES = Object.keys(STEP_TYPE_TABLE) as StepType[];

/** One schema per step type: the unknown-key messages use them to say which type owns a key. */
export const STEP_SCHEMAS = Object.fromEntries(
  STEP_TYPES.map((type) => [type, STEP_TYPE_TABLE[type].schema]),
) as Readonly<Record<StepType, StepTypeSpec["schema"]>>;

const [firstSchema, ...otherSchemas] = STEP_TYPES.map((type) => STEP_TYPE_TABLE[type].schema);
export const StepSchema: z.ZodType<Step> = z
  .discriminatedUnion("type", [firstSchema!, ...otherSchemas])
  .meta({ id: "Step" });

const SPECS: Readonly<Record<string, StepTypeSpec | undefined>> = STEP_TYPE_TABLE;

/** The spec of a step type by name; undefined for a name that is none (a state another version recorded). */
export function stepTypeSpec(type: string): StepTypeSpec | undefined {
  return Object.hasOwn(SPECS, type) ? SPECS[type] : undefined;
}

/** The step lists directly inside a step: none unless it is a container. */
export function childSteps(step: Step): readonly (readonly Step[])[] {
  return stepTypeSpec(step.type)?.children?.(step) ?? [];
}
