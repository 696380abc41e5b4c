import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

const compiled = new Map<string, ValidateFunction>();
const MAX_COMPILED = 256;

export type SchemaCheck = { ok: true; value: unknown } | { ok: false; problems: string };

/** A step's `output_schema`, compiled once per distinct schema; throws when it is not a valid JSON Schema. */
export function compileOutputSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
    if (compiled.size > MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  }
  return validate;
}

/** The answer parsed as JSON (a Markdown code fence around it is allowed) and validated. */
export function checkAnswer(text: string, validate: ValidateFunction): SchemaCheck {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/i.exec(text);
  let value: unknown;
  try {
    value = JSON.parse(fenced ? fenced[1]! : text);
  } catch {
    return { ok: false, problems: "the answer is not JSON" };
  }
  if (validate(value)) return { ok: true, value };
  const problems = (validate.errors ?? [])
    .map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`)
    .join("; ");
  return { ok: false, problems };
}
