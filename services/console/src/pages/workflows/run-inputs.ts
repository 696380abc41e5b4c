import type { VariableDef } from "@wf/shared/workflow";

/** A variable as the run form shows it: every field holds text, read into its type on submit. */
export function initialText(def: VariableDef): string {
  return def.default === undefined ? "" : textOf(def, def.default);
}

/**
 * `value` as the field of a variable of `def`'s type holds it. A value that is not of that type (the variable's type
 * changed since a run) is shown as it is, for the check on submit to name.
 */
function textOf(def: VariableDef, value: unknown): string {
  if (def.type === "string" && typeof value === "string") return value;
  if ((def.type === "number" || def.type === "boolean") && typeof value !== "object") return String(value);
  const compact = JSON.stringify(value) ?? "";
  return compact.length <= 60 ? compact : JSON.stringify(value, null, 2);
}

/**
 * The form's texts filled from the variables an earlier run ran with: each variable the workflow declares now takes
 * the run's value (one the run had none for keeps its text); `undeclared` names the run's variables this version
 * no longer has.
 */
export function textsFromRun(
  variables: Record<string, VariableDef>,
  texts: Record<string, string>,
  ran: Record<string, unknown>,
): { texts: Record<string, string>; undeclared: string[] } {
  const filled = { ...texts };
  for (const [name, def] of Object.entries(variables))
    if (Object.hasOwn(ran, name) && ran[name] !== undefined) filled[name] = textOf(def, ran[name]);
  return { texts: filled, undeclared: Object.keys(ran).filter((name) => !Object.hasOwn(variables, name)) };
}

type Read = { value: unknown } | { error: string } | { unset: true };

function read(def: VariableDef, text: string): Read {
  const trimmed = text.trim();
  if (trimmed === "") return { unset: true };
  switch (def.type) {
    case "string":
      return { value: text };
    case "number": {
      const n = Number(trimmed);
      return Number.isFinite(n) ? { value: n } : { error: "must be a number" };
    }
    case "boolean":
      return trimmed === "true" || trimmed === "false"
        ? { value: trimmed === "true" }
        : { error: "must be true or false" };
    case "object":
    case "array": {
      let value: unknown;
      try {
        value = JSON.parse(trimmed);
      } catch (err) {
        return { error: `is not JSON: ${err instanceof Error ? err.message : String(err)}` };
      }
      const isArray = Array.isArray(value);
      const isObject = typeof value === "object" && value !== null && !isArray;
      if (def.type === "array" ? !isArray : !isObject)
        return { error: `must be a JSON ${def.type === "array" ? "array, like [1, 2]" : 'object, like {"a": 1}'}` };
      return { value };
    }
  }
}

/**
 * The inputs of a run from the form's texts, or what is wrong with each field. A field left empty
 * is left out, so the variable's default applies; a required one without a default is a mistake.
 */
export function readInputs(
  variables: Record<string, VariableDef>,
  texts: Record<string, string>,
): { inputs: Record<string, unknown>; errors: Record<string, string> } {
  const inputs: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const [name, def] of Object.entries(variables)) {
    const result = read(def, texts[name] ?? "");
    if ("error" in result) errors[name] = result.error;
    else if ("value" in result) inputs[name] = result.value;
    else if (def.required && def.default === undefined) errors[name] = "is required";
  }
  return { inputs, errors };
}
