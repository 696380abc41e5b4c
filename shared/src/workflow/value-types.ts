export const VARIABLE_TYPES = ["string", "number", "boolean", "array", "object"] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function matchesVariableType(type: VariableType, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return isPlainObject(value);
  }
}

/** How a value reads in a message: `the string "abc"`, `a list`, ... */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "an empty value (null)";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 37)}...` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  return `the ${typeof value} ${String(value)}`;
}

/** `a number`, `a list`, ... for a variable type or a zod `expected` name. */
export function typeNoun(type: string): string {
  switch (type) {
    case "array":
      return "a list";
    case "object":
    case "record":
      return "a mapping";
    case "int":
      return "a whole number";
    case "boolean":
      return "true or false";
    case "string":
      return "a string";
    case "number":
      return "a number";
    default:
      return type;
  }
}
