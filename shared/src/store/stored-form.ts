import type { z } from "zod";

/**
 * The form a record is written in: every field at its schema's default is left out, and reading
 * it through the schema puts the field back. Most of a snapshot's fields sit at their defaults
 * for most of its life (a step's timers and links, zero usage, no parent, holder or debug state),
 * and every step writes it again: a finished 3-step JavaScript execution's snapshot is about a
 * quarter smaller, at rest and on each write.
 */
export type StoredForm<T> = (value: T) => unknown;

/**
 * What a record type leaves out of its stored form beyond its fields' defaults, and puts back before its schema reads
 * it (outbox-form.ts).
 */
export interface RecordForm {
  /** `stored` (a record's stored form) less what `restore` can put back. */
  compact(stored: unknown): unknown;
  /**
   * A stored record with what `compact` left out put back (what it names elsewhere read first); a record written
   * whole reads as it is.
   */
  restore(stored: unknown): unknown;
  /** The compacted record's JSON, when the form writes it faster than JSON.stringify does. */
  stringify?(compacted: unknown): string;
}

/** The stored form of `schema`'s records; the identity when nothing in it has a default. */
export function storedForm<T>(schema: z.ZodType<T>): StoredForm<T> {
  return compile(schema) ?? ((value) => value);
}

type Compact = (value: unknown) => unknown;

interface Def {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  element?: z.ZodType;
  defaultValue?: unknown;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** What compacts values of `schema`, or null when they are written as they are. */
function compile(schema: z.ZodType): Compact | null {
  const def = defOf(schema);
  switch (def.type) {
    case "object":
      return compileObject(def.shape ?? {});
    case "optional":
    case "nullable":
    case "default": {
      const inner = compile(def.innerType!);
      return inner && ((value) => (value === null || value === undefined ? value : inner(value)));
    }
    case "record": {
      const inner = compile(def.valueType!);
      return inner && ((value) => (isPlainObject(value) ? mapValues(value, inner) : value));
    }
    case "array": {
      const inner = compile(def.element!);
      return inner && ((value) => (Array.isArray(value) ? value.map(inner) : value));
    }
    default:
      // Unions, pipes and the rest are written whole: what parses them back is not a field's default.
      return null;
  }
}

interface Field {
  /** Present when the field is left out at this value. */
  omitAt?: { value: unknown };
  inner: Compact | null;
}

function compileObject(shape: Record<string, z.ZodType>): Compact | null {
  const fields = new Map<string, Field>();
  for (const [key, schema] of Object.entries(shape)) {
    const def = defOf(schema);
    const field: Field = { inner: compile(schema) };
    if (def.type === "default" && constantDefault(def)) field.omitAt = { value: def.defaultValue };
    if (field.omitAt || field.inner) fields.set(key, field);
  }
  if (fields.size === 0) return null;
  return (value) => {
    if (!isPlainObject(value)) return value;
    const out: Record<string, unknown> = {};
    // for-in, not Object.keys: no array is made for each object of the record, at each of its writes.
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const v = value[key];
      const field = fields.get(key);
      if (field === undefined) out[key] = v;
      else if (!(field.omitAt && jsonEqual(v, field.omitAt.value)))
        out[key] = field.inner && v !== undefined ? field.inner(v) : v;
    }
    return out;
  };
}

/** Only a default that is the same JSON value each time it is made can stand for a missing field. */
function constantDefault(def: Def): boolean {
  const first: unknown = def.defaultValue;
  const second: unknown = def.defaultValue;
  return isJsonValue(first) && jsonEqual(first, second);
}

function isJsonValue(v: unknown): boolean {
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJsonValue);
  return isPlainObject(v) && Object.values(v).every(isJsonValue);
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

/** A JSON object (not an array, not null): what a stored form may map field by field. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function mapValues(obj: Record<string, unknown>, f: Compact): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in obj) if (Object.hasOwn(obj, key)) out[key] = f(obj[key]);
  return out;
}
