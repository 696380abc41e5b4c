import type { FieldProblem } from "@wf/shared/api";
import { WorkflowSchema } from "@wf/shared/workflow";

/**
 * Declared variables by workflow definition: a trigger's workflow comes from the store's recent
 * reads, the same object while the workflow is unchanged, so its schema is parsed once.
 */
const declaredByDefinition = new WeakMap<object, Record<string, unknown>>();

function declaredVariables(definition: unknown): Record<string, unknown> {
  const key = typeof definition === "object" && definition !== null ? definition : null;
  const known = key && declaredByDefinition.get(key);
  if (known) return known;
  const workflow = WorkflowSchema.safeParse(definition);
  const declared = workflow.success ? (workflow.data.variables ?? {}) : {};
  if (key) declaredByDefinition.set(key, declared);
  return declared;
}

/**
 * The workflow variables a webhook payload sets (docs/webhooks.md, Variables). Without a
 * mapping: every top-level string, number or boolean field that names a declared variable
 * (other fields are the sender's business, not an error; nested objects and arrays never map).
 * With a mapping: variable <- top-level field, whatever its type (the start checks it); a field
 * missing from the payload is left out, so the variable keeps its default.
 */
export function webhookInputs(
  payload: Record<string, unknown>,
  mapping: Record<string, string> | null,
  definition: unknown,
): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  if (mapping !== null) {
    for (const [variable, field] of Object.entries(mapping)) {
      if (Object.hasOwn(payload, field)) inputs[variable] = payload[field];
    }
    return inputs;
  }
  const declared = declaredVariables(definition);
  for (const [field, value] of Object.entries(payload)) {
    const scalar = typeof value === "string" || typeof value === "number" || typeof value === "boolean";
    if (scalar && Object.hasOwn(declared, field)) inputs[field] = value;
  }
  return inputs;
}

/**
 * A mapping's variables that the workflow does not declare: a trigger setting one is refused, with a 400 its sender
 * cannot mend, so the webhook's owner hears of it when setting the mapping.
 */
export function mappingProblems(mapping: Record<string, string> | null, definition: unknown): FieldProblem[] {
  if (mapping === null) return [];
  const declared = Object.keys(declaredVariables(definition));
  const known = declared.length ? `; its variables: ${declared.join(", ")}` : "; it declares none";
  return Object.keys(mapping)
    .filter((name) => !declared.includes(name))
    .map((name) => ({
      in: "body",
      field: `variableMapping.${name}`,
      message: `the workflow declares no variable \`${name}\`${known}`,
    }));
}
