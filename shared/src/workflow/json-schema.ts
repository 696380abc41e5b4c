import { z } from "zod";
import { CronSchema, McpServerSchema, VariableDefSchema, WorkflowSchema } from "./schema";
import { JsonValueSchema, TemplateOrListSchema } from "./schema-basics";
import { MAX_FOREACH_CONCURRENCY, MAX_PARALLEL_BRANCHES } from "./fan-out-bounds";
import { CodeStepSchema, ForeachStepSchema, ParallelStepSchema, STEP_TYPE_TABLE, WaitStepSchema } from "./step-types";
import { VARIABLE_TYPES } from "./value-types";

type JsonSchema = Record<string, unknown>;

const VARIABLE_DEFAULT_TYPES: Record<(typeof VARIABLE_TYPES)[number], JsonSchema> = {
  string: { type: "string" },
  number: { type: "number" },
  boolean: { type: "boolean" },
  array: { type: "array" },
  object: { type: "object" },
};

/** Each step type's one-line doc, which editors show for its `type`. */
const STEP_DOCS: ReadonlyMap<z.core.$ZodType, string> = new Map(
  Object.values(STEP_TYPE_TABLE).map((spec) => [spec.schema, spec.doc]),
);

/** Rules the zod refinements enforce in code, restated in JSON Schema for editors. */
function fixUp(schema: z.core.$ZodTypes, json: JsonSchema): void {
  const doc = STEP_DOCS.get(schema);
  if (doc !== undefined) (json.properties as Record<string, JsonSchema>).type!.description = doc;
  if (schema === CodeStepSchema) {
    json.if = { properties: { language: { const: "cli" } }, required: ["language"] };
    json.then = { required: ["command"], not: { required: ["code"] } };
    json.else = { required: ["code"], not: { required: ["command"] } };
  } else if (schema === WaitStepSchema) {
    json.oneOf = [{ required: ["seconds"] }, { required: ["until"] }];
    const properties = json.properties as Record<string, JsonSchema>;
    properties.until = {
      description: "An ISO-8601 date-time with a zone, or a `{{ }}` template.",
      anyOf: [
        { type: "string", format: "date-time" },
        { type: "string", pattern: "\\{\\{" },
      ],
    };
  } else if (schema === ForeachStepSchema) {
    (json.properties as Record<string, JsonSchema>).concurrency!.maximum = MAX_FOREACH_CONCURRENCY;
  } else if (schema === ParallelStepSchema) {
    (json.properties as Record<string, JsonSchema>).branches!.maxProperties = MAX_PARALLEL_BRANCHES;
  } else if (schema === McpServerSchema) {
    json.oneOf = [{ required: ["url"] }, { required: ["command"] }];
  } else if (schema === VariableDefSchema) {
    json.allOf = VARIABLE_TYPES.map((type) => ({
      if: { properties: { type: { const: type } }, required: ["type"] },
      then: { properties: { default: VARIABLE_DEFAULT_TYPES[type] } },
    }));
  } else if (schema === CronSchema) {
    json.pattern = "^\\s*\\S+(\\s+\\S+){4,5}\\s*$";
  } else if (schema === TemplateOrListSchema) {
    const [template] = json.anyOf as JsonSchema[];
    if (template) template.pattern = "^\\s*\\{\\{[\\s\\S]*\\}\\}\\s*$";
  }
}

/**
 * The JSON Schema of the workflow format, for editors (completion, hover docs, squiggles).
 * What it cannot say (unique step names, agent references, expression syntax, cron ranges) is
 * left to parseWorkflow.
 */
export function workflowJsonSchema(): JsonSchema {
  const schema = z.toJSONSchema(WorkflowSchema, {
    io: "input",
    target: "draft-2020-12",
    override: ({ zodSchema, jsonSchema }) => fixUp(zodSchema, jsonSchema as JsonSchema),
  }) as JsonSchema;
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  // z.json() is a recursive union that editors only need to read as "any value".
  const description = JsonValueSchema.meta()?.description;
  for (const key of Object.keys(defs)) if (key.startsWith("__schema")) delete defs[key];
  defs.JsonValue = description === undefined ? {} : { description };
  return {
    $schema: schema.$schema,
    $id: "https://wf.local/schema/workflow.schema.json",
    title: "Workflow",
    description: "A workflow: steps run by the workflow service, with variables, agents and triggers.",
    ...Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "$schema")),
  };
}
