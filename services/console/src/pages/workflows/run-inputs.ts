import type { VariableDef } from "@wf/shared/workflow";

/** A variable as the run form shows it: every field holds text, read into its type on submit. */
export function initialText(def: VariableDef): string {
  if (def.default === undefined) return "";
  if (def.type === "object" || def.type === "array") {
    const compact = JSON.stringify(def.default);
    return compact.length <= 60 ? compact : JSON.stringify(def.default, null, 2);
  }
  return String(def.default);
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
