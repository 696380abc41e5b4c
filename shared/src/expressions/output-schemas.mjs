// Steps' `output_schema`s, compiled and checked in an expression host's thread (eval-thread.mjs), not on the
// executor's: Ajv compiling one 16 KB schema took 0.03-0.6 s (a 64 KB one up to 4.5 s), every tenant's runs on
// the executor held meanwhile. The host's deadline bounds a compile as it bounds an evaluation. Plain JS: it runs
// without tsx.
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { RE2JS } from "re2js";
import { OwnerLru } from "../pools/owner-lru.mjs";

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = addFormatsModule.default ?? addFormatsModule;

/**
 * A schema's `pattern` and `patternProperties` on RE2, in time linear in the answer, as expressions' regexes are: on
 * JavaScript's engine, a workflow's `pattern: "^(a+)+$"` and a model's answer of 30 a's and a "!" held the thread for
 * minutes. A pattern RE2 cannot run (a backreference, a lookaround) makes the schema invalid, saying why.
 */
const linearRegExp = Object.assign(
  (pattern, flags) => {
    let program;
    try {
      program = RE2JS.compile(RE2JS.translateRegExp(new RegExp(pattern, flags)));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new Error(
        `pattern /${pattern}/ cannot run on the linear-time engine (RE2: no backreferences, no lookaround): ${reason}`,
      );
    }
    // Ajv keeps compiled patterns by this text.
    return { test: (s) => program.matcher(s).find(), toString: () => `/${pattern}/${flags}` };
  },
  { code: "linearRegExp" },
);

/**
 * Checks schemas by the meta-schema (compiled once, as the thread loads this module); compiles none itself. Each schema
 * is compiled by an Ajv of its own (about 1 ms and 5 KB retained, once checked here): what its `$id`s name is its own,
 * so one owner's schema cannot take an id another's uses ("schema with key or id … already exists"), and a schema let
 * go of below leaves nothing behind (an Ajv keeps every schema it compiled).
 */
const meta = new Ajv({ allErrors: true, strict: false });
meta.validateSchema({});
const OPTIONS = { allErrors: true, strict: false, validateSchema: false, code: { regExp: linearRegExp } };

/**
 * Compiled schemas by their JSON, bounded in count and in characters of JSON: one owner's many distinct (or large)
 * schemas push out its own least recently used, not another's (OwnerLru).
 */
const MAX_COMPILED = 256;
const MAX_COMPILED_CHARS = 4 * 1024 * 1024;
const compiled = new OwnerLru(MAX_COMPILED, MAX_COMPILED_CHARS);

function compile(schemaJson, owner) {
  let validate = compiled.get(schemaJson);
  if (validate === undefined) {
    const schema = JSON.parse(schemaJson);
    // Throws "schema is invalid: …", as compiling it would.
    meta.validateSchema(schema, true);
    const ajv = new Ajv(OPTIONS);
    addFormats(ajv);
    validate = ajv.compile(schema);
    compiled.set(schemaJson, owner, validate, schemaJson.length);
  }
  return validate;
}

/**
 * A job's schema compiled (throwing when it is not a valid JSON Schema) and, when the job has an answer, the answer
 * parsed as JSON (a Markdown code fence around it is allowed) and validated: `{ ok: true, value }`, or
 * `{ ok: false, problems }` saying what does not fit.
 */
export function checkBySchema({ schema, answer, owner }) {
  const validate = compile(schema, owner);
  if (answer === undefined) return { ok: true };
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/i.exec(answer);
  let value;
  try {
    value = JSON.parse(fenced ? fenced[1] : answer);
  } catch {
    return { ok: false, problems: "the answer is not JSON" };
  }
  if (validate(value)) return { ok: true, value };
  const problems = (validate.errors ?? [])
    .map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`)
    .join("; ");
  return { ok: false, problems };
}

/** How many compiled schemas the thread keeps, their JSON's characters, and whether it keeps one. */
export function schemasKept() {
  return { count: compiled.count, chars: compiled.size, has: (schemaJson) => compiled.has(schemaJson) };
}
