import { MODIFIERS, type Modifier } from "@wf/shared/canvas";
import { SchemaNav, type Schema } from "../../editor/schema-nav";

/** How a field is edited: `yaml` as YAML text, for a value that may be a list or a mapping. */
export type Control = "text" | "textarea" | "number" | "integer" | "checkbox" | "select" | "yaml";

/** A kind of value a field's schema allows; `any` allows every kind. */
export type Kind = "string" | "number" | "integer" | "boolean" | "array" | "object" | "any";

export interface FormField {
  /** The key in the step, or the path into one of its mappings (`["retry", "max_attempts"]`). */
  path: string[];
  control: Control;
  /** A select's choices. */
  options?: string[];
  /** What a `yaml` field's text may hold. */
  kinds?: Kind[];
  required: boolean;
  description?: string;
}

export interface ModifierForm {
  modifier: Modifier;
  on: boolean;
  fields: FormField[];
}

export interface StepForm {
  fields: FormField[];
  modifiers: ModifierForm[];
}

/** Keys with operations of their own (a rename, the lists of a container) or shown apart (the modifiers). */
const NOT_FIELDS = new Set<string>(["name", "type", "steps", "branches", ...MODIFIERS]);
/** Strings that are usually several lines, whatever they hold now. */
const MULTILINE = new Set(["code", "prompt", "system", "instructions"]);

function kinds(nav: SchemaNav, schema: Schema): Kind[] {
  return nav
    .alternatives(schema)
    .flatMap((s): Kind[] => (s.type === undefined ? ["any"] : ([s.type].flat() as Kind[])));
}

function kindOf(value: unknown): Kind | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as Kind;
}

function scalarControl(kind: Kind, key: string, value: unknown): Control {
  switch (kind) {
    case "string":
    case "any":
      return MULTILINE.has(key) || (typeof value === "string" && value.includes("\n")) ? "textarea" : "text";
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "checkbox";
    default:
      return "yaml";
  }
}

/**
 * The control for a value of `schema` as it stands: an enum is a select; a value that may be a
 * template or a list (`items`) is YAML text, which takes either, set or not, so that the panel can
 * turn one into the other; a value that may be of several other kinds gets the control of the kind
 * it has now, or, when unset, of the first scalar kind the schema allows.
 */
function controlFor(
  nav: SchemaNav,
  schema: Schema,
  key: string,
  value: unknown,
): Pick<FormField, "control" | "options" | "kinds"> {
  const options = nav.alternatives(schema).flatMap((s) => s.enum ?? []);
  if (options.length > 0) return { control: "select", options: options.map(String) };
  const allowed = kinds(nav, schema);
  const yaml = { control: "yaml" as const, kinds: allowed };
  const collection = allowed.includes("array") || allowed.includes("object");
  if (collection && allowed.includes("string")) return yaml;
  const has = kindOf(value);
  if (has === undefined) {
    const first = allowed.find((k) => k !== "array" && k !== "object");
    return first === undefined ? yaml : { control: scalarControl(first, key, value) };
  }
  if (allowed.includes(has) || allowed.includes("any")) {
    const control = scalarControl(has, key, value);
    return control === "yaml" ? yaml : { control };
  }
  // A whole number where the schema says number.
  if (has === "integer" && allowed.includes("number")) return { control: "number" };
  return yaml;
}

function field(nav: SchemaNav, path: string[], schema: Schema, required: boolean, value: unknown): FormField {
  const node = nav.deref(schema);
  const key = path[path.length - 1] ?? "";
  return {
    path,
    ...controlFor(nav, node, key, value),
    required,
    ...(node.description ? { description: node.description } : {}),
  };
}

function mappingFields(
  nav: SchemaNav,
  prefix: string[],
  schema: Schema,
  values: Record<string, unknown>,
  skip: ReadonlySet<string>,
): FormField[] {
  const node = nav.deref(schema);
  return Object.entries(node.properties ?? {}).flatMap(([key, prop]) =>
    skip.has(key) ? [] : [field(nav, [...prefix, key], prop, node.required?.includes(key) ?? false, values[key])],
  );
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The schema of a step of `type`: the `Step` variant whose `type` is that constant. */
function stepSchema(nav: SchemaNav, root: Schema, type: string): Schema | undefined {
  return nav.alternatives(root.$defs?.Step ?? {}).find((s) => s.properties?.type?.const === type);
}

/** The step's scalar values as text, as the schema's conditions read them (`language: cli`). */
function scalars(values: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).flatMap(([key, value]) =>
      typeof value === "string" || typeof value === "number" || typeof value === "boolean"
        ? [[key, String(value)]]
        : [],
    ),
  );
}

/**
 * The side panel's form for a step, read from the workflow's JSON Schema: its type's own fields,
 * then each modifier, on or off, with its fields when on. `values` is the step as the file has it;
 * an agent step picks its `agent` among the file's `agents`. A field its values rule out is left
 * out (a code step's `command` unless it is `cli`, its `code` then), and one they call for is required.
 */
export function stepForm(
  root: Schema,
  type: string,
  values: Record<string, unknown>,
  agents: readonly string[] = [],
): StepForm {
  const nav = new SchemaNav(root);
  const schema = stepSchema(nav, root, type);
  if (!schema) return { fields: [], modifiers: [] };
  const props = schema.properties ?? {};
  const modifiers = MODIFIERS.map((modifier): ModifierForm => {
    const prop = props[modifier] ?? {};
    const on = values[modifier] !== undefined;
    const node = nav.deref(prop);
    const fields = !on
      ? []
      : node.properties
        ? mappingFields(nav, [modifier], node, record(values[modifier]), new Set())
        : [field(nav, [modifier], prop, true, values[modifier])];
    return { modifier, on, fields };
  });
  const branch = nav.branch(schema, scalars(values));
  const skip = new Set([...NOT_FIELDS, ...branch.forbidden]);
  const fields = mappingFields(nav, [], schema, values, skip).map((f) => {
    const required = f.required || branch.required.includes(f.path[0] ?? "");
    return f.path[0] === "agent" && agents.length > 0
      ? { ...f, required, control: "select" as const, options: [...agents] }
      : { ...f, required };
  });
  return { fields, modifiers };
}
