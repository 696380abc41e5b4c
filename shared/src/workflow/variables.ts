import type { VariableDef, Workflow } from "./schema";
import { didYouMean } from "./suggest";
import { describeValue, isPlainObject, matchesVariableType, typeNoun } from "./value-types";

export interface VariableError {
  name: string;
  message: string;
}

export type ResolveResult = { ok: true; vars: Record<string, unknown> } | { ok: false; errors: VariableError[] };

/**
 * The variables an execution runs with: the inputs, then defaults for what they leave out.
 * Reports every input that names no variable, every missing required one and every wrong type.
 */
export function resolveVariables(workflow: Workflow, inputs: Record<string, unknown>): ResolveResult {
  const defs = workflow.variables ?? {};
  const errors: VariableError[] = [];
  const vars: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(inputs)) {
    if (value !== undefined && !Object.hasOwn(defs, name)) {
      const known = Object.keys(defs);
      const hint =
        known.length === 0
          ? ": this workflow declares no variables"
          : `${didYouMean(name, known)}; known: ${known.join(", ")}`;
      errors.push({ name, message: `no variable named \`${name}\`${hint}` });
    }
  }
  for (const [name, def] of Object.entries(defs)) {
    const value = Object.hasOwn(inputs, name) ? inputs[name] : undefined;
    if (value === undefined) {
      if (def.default !== undefined) vars[name] = structuredClone(def.default);
      else if (def.required === true)
        errors.push({ name, message: `required variable \`${name}\` (${def.type}) is missing` });
    } else if (matchesVariableType(def.type, value)) {
      vars[name] = value;
    } else {
      errors.push({ name, message: `\`${name}\` must be ${typeNoun(def.type)}, not ${describeValue(value)}` });
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, vars };
}

export type CoerceResult = { ok: true; value: unknown } | { ok: false; message: string };

const NUMBER_TEXT = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** Turns command-line text (`--var n=5`) into a value of the variable's type. */
export function coerceVariable(def: Pick<VariableDef, "type">, text: string): CoerceResult {
  switch (def.type) {
    case "string":
      return { ok: true, value: text };
    case "number": {
      const trimmed = text.trim();
      const value = Number(trimmed);
      if (NUMBER_TEXT.test(trimmed) && Number.isFinite(value)) return { ok: true, value };
      return { ok: false, message: `\`${text}\` is not a number` };
    }
    case "boolean": {
      const lowered = text.trim().toLowerCase();
      if (lowered === "true" || lowered === "false") return { ok: true, value: lowered === "true" };
      return { ok: false, message: `\`${text}\` is not a boolean: use true or false` };
    }
    case "array":
    case "object": {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        return {
          ok: false,
          message: `\`${text}\` is not valid JSON (${reason}); give ${typeNoun(def.type)} as JSON, e.g. ${def.type === "array" ? '["a", 1]' : '{"key": "value"}'}`,
        };
      }
      const fits = def.type === "array" ? Array.isArray(value) : isPlainObject(value);
      return fits
        ? { ok: true, value }
        : { ok: false, message: `expected ${typeNoun(def.type)} as JSON, got ${describeValue(value)}` };
    }
  }
}
