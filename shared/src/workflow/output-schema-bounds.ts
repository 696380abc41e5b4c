import type { Finding } from "./issues";
import type { PathSegment } from "./locate";

/**
 * The longest `output_schema` an llm step may have, in characters of its JSON. Ajv compiles one in an expression host
 * (output-schemas.mjs), by the hosts' deadline of a second: a schema of this size took 0.03-0.6 s there on a 2-core
 * machine (one of 64 KB up to 4.5 s), and a structured answer's schema is rarely over a few KB. The same for every
 * plan, as the fan-out bounds are (fan-out-bounds.ts).
 */
export const MAX_OUTPUT_SCHEMA_CHARS = 16 * 1024;

/** What is wrong with an `output_schema` whose JSON is `json`, by its size; undefined when nothing is. */
export function outputSchemaSizeProblem(json: string): string | undefined {
  if (json.length <= MAX_OUTPUT_SCHEMA_CHARS) return undefined;
  return `\`output_schema\` is ${json.length.toLocaleString("en")} characters of JSON, more than the ${MAX_OUTPUT_SCHEMA_CHARS.toLocaleString("en")} allowed: describe the answer with a smaller schema`;
}

/**
 * The bound above, checked when a file is validated (saved, imported, run from the command line), and by the executor
 * before it compiles one (a definition stored before the bound: the step fails with the same words).
 */
export function outputSchemaFindings(step: Record<string, unknown>, path: PathSegment[]): Finding[] {
  if (step.type !== "llm" || step.output_schema === undefined) return [];
  const problem = outputSchemaSizeProblem(JSON.stringify(step.output_schema) ?? "");
  if (problem === undefined) return [];
  const message = typeof step.name === "string" ? `step \`${step.name}\`: ${problem}` : problem;
  return [{ path: [...path, "output_schema"], at: "key", message }];
}
