import { Ajv, type Options, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { RE2JS } from "re2js";

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

/**
 * A schema's `pattern` and `patternProperties` on RE2, in time linear in the answer, as expressions' regexes are: on
 * JavaScript's engine, a workflow's `pattern: "^(a+)+$"` and a model's answer of 30 a's and a "!" held the executor's
 * thread, every tenant's runs on it, for minutes. A pattern RE2 cannot run (a backreference, a lookaround) makes the
 * schema invalid, saying why.
 */
const linearRegExp: NonNullable<NonNullable<Options["code"]>["regExp"]> = Object.assign(
  (pattern: string, flags: string) => {
    let program: RE2JS;
    try {
      program = RE2JS.compile(RE2JS.translateRegExp(new RegExp(pattern, flags)));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(
        `pattern /${pattern}/ cannot run on the linear-time engine (RE2: no backreferences, no lookaround): ${reason}`,
      );
    }
    // Ajv keeps compiled patterns by this text.
    return { test: (s: string) => program.matcher(s).find(), toString: () => `/${pattern}/${flags}` };
  },
  { code: "linearRegExp" },
);

const ajv = new Ajv({ allErrors: true, strict: false, code: { regExp: linearRegExp } });
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
