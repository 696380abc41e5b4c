import { z } from "zod";
import type { Finding } from "./issues";
import { formatPath, type PathSegment } from "./locate";
import { CODE_LANGUAGES, STEP_SCHEMAS, STEP_TYPES } from "./step-types";
import { closest, didYouMean } from "./suggest";
import { describeValue, isPlainObject, typeNoun } from "./value-types";

type Issue = z.core.$ZodIssue;

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let value = data;
  for (const segment of path) {
    if (Array.isArray(value) && typeof segment === "number") value = value[segment];
    else if (isPlainObject(value)) value = value[String(segment)];
    else return undefined;
  }
  return value;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** The union option that applies to `value`: by discriminator, else by the kind of value. */
function pickOption(schema: z.ZodUnion, value: unknown): z.ZodType | undefined {
  const options = schema.options as readonly z.ZodType[];
  if (schema instanceof z.ZodDiscriminatedUnion) {
    const key = schema.def.discriminator;
    const tag = isPlainObject(value) ? value[key] : undefined;
    return options.find((o) => {
      const field = o instanceof z.ZodObject ? o.shape[key] : undefined;
      return field instanceof z.ZodLiteral && field.values.has(tag as never);
    });
  }
  return options.find((o) => {
    const option = unwrap(o);
    if (Array.isArray(value)) return option instanceof z.ZodArray;
    if (isPlainObject(value)) return option instanceof z.ZodObject || option instanceof z.ZodRecord;
    return false;
  });
}

/** The schema that applies to `value`: optionals unwrapped, the matching union option picked. */
function resolveFor(schema: z.ZodType, value: unknown): z.ZodType | undefined {
  const unwrapped = unwrap(schema);
  if (!(unwrapped instanceof z.ZodUnion)) return unwrapped;
  const option = pickOption(unwrapped, value);
  return option && unwrap(option);
}

/** The schema that validated the value at `path`, following the data through unions. */
function schemaAt(root: z.ZodType, data: unknown, path: readonly PathSegment[]): z.ZodType | undefined {
  let value = data;
  let schema = resolveFor(root, value);
  for (const segment of path) {
    let child: z.ZodType | undefined;
    if (schema instanceof z.ZodObject) child = schema.shape[String(segment)] as z.ZodType | undefined;
    else if (schema instanceof z.ZodArray) child = schema.element as z.ZodType;
    else if (schema instanceof z.ZodRecord) child = schema.valueType as z.ZodType;
    value = valueAt(value, [segment]);
    schema = child && resolveFor(child, value);
  }
  return schema;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(words: readonly string[]): string {
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

const STEP_SCHEMA_SET: ReadonlySet<z.ZodType> = new Set(Object.values(STEP_SCHEMAS));

function unknownKeyMessage(key: string, objectSchema: z.ZodType | undefined): { message: string; suggestion?: string } {
  const allowed = objectSchema instanceof z.ZodObject ? Object.keys(objectSchema.shape) : [];
  if (objectSchema && STEP_SCHEMA_SET.has(objectSchema)) {
    const owners = STEP_TYPES.filter((t) => key in STEP_SCHEMAS[t].shape);
    if (owners.length > 0) {
      const ownType = (objectSchema as z.ZodObject).shape.type;
      const own = ownType instanceof z.ZodLiteral ? String(ownType.value) : "this";
      return {
        message: `\`${key}\` is not a key of ${own} steps (it belongs to ${listed(owners)} steps): remove it or change \`type\``,
      };
    }
  }
  const suggestion = closest(key, allowed);
  if (suggestion !== undefined)
    return { message: `unknown key \`${key}\` (did you mean \`${suggestion}\`?)`, suggestion };
  const list = allowed.length > 0 ? `; allowed keys here: ${allowed.join(", ")}` : "";
  return { message: `unknown key \`${key}\`: remove it${list}` };
}

function quoteHint(expected: string, value: unknown): string {
  if (
    (expected === "number" || expected === "int") &&
    typeof value === "string" &&
    value.trim() !== "" &&
    Number.isFinite(Number(value))
  ) {
    return ": remove the quotes";
  }
  if (expected === "string" && (typeof value === "number" || typeof value === "boolean")) {
    return `: quote it, e.g. "${String(value)}"`;
  }
  return "";
}

function unionExpectation(issue: Extract<Issue, { code: "invalid_union" }>): string | undefined {
  const nouns: string[] = [];
  for (const branch of issue.errors) {
    const first = branch[0];
    if (branch.length !== 1 || first?.code !== "invalid_type" || first.path.length > 0) return undefined;
    nouns.push(typeNoun(first.expected));
  }
  return nouns.length > 0 ? nouns.join(" or ") : undefined;
}

function sizeMessage(issue: Extract<Issue, { code: "too_small" | "too_big" }>, value: unknown): string {
  const small = issue.code === "too_small";
  const limit = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === "array") {
    if (small && limit === 1) return "must not be empty: add at least one item";
    return `must have ${small ? "at least" : "at most"} ${limit} item${limit === 1 ? "" : "s"}`;
  }
  if (issue.origin === "string") {
    if (small && limit === 1) return "must not be empty";
    return `must be ${small ? "at least" : "at most"} ${limit} characters long`;
  }
  const bound = issue.inclusive ? (small ? "at least" : "at most") : small ? "greater than" : "less than";
  return `must be ${bound} ${limit}, not ${String(value)}`;
}

interface Translated {
  finding: Finding;
  /** For a missing key: the key, so a did-you-mean on a misspelt neighbour can stand for it. */
  missing?: string;
  /** For an unknown key: the key it most likely meant. */
  suggestion?: string;
}

function translate(issue: Issue, data: unknown, root: z.ZodType): Translated[] {
  const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
  const value = valueAt(data, path);
  const last = path[path.length - 1];
  const at = (message: string, where: "key" | "value" = "value"): Translated[] => [
    { finding: { path, message, at: where } },
  ];

  if (issue.code === "unrecognized_keys") {
    const objectSchema = schemaAt(root, data, path);
    return issue.keys.map((key) => {
      const { message, suggestion } = unknownKeyMessage(key, objectSchema);
      return { finding: { path: [...path, key], message, at: "key" as const }, suggestion };
    });
  }
  if (issue.code === "custom") {
    return at(issue.message, issue.params?.at === "key" ? "key" : "value");
  }

  const parent = valueAt(data, path.slice(0, -1));
  if (value === undefined && typeof last === "string" && isPlainObject(parent)) {
    let message = `missing required key \`${last}\`: add it`;
    if (issue.code === "invalid_union" && issue.discriminator !== undefined && "options" in issue) {
      message = `missing required key \`${last}\`: add it, one of ${(issue.options ?? []).join(", ")}`;
    } else if (issue.code === "invalid_type") {
      message += ` (${typeNoun(issue.expected)})`;
    }
    return [{ finding: { path, message, at: "value" }, missing: last }];
  }

  switch (issue.code) {
    case "invalid_union": {
      if (issue.discriminator !== undefined && "options" in issue) {
        const options = (issue.options ?? []).map(String);
        if (typeof value === "string" && (CODE_LANGUAGES as readonly string[]).includes(value)) {
          return at(`\`${value}\` is a language, not a step type: use \`type: code\` with \`language: ${value}\``);
        }
        const shown = typeof value === "string" ? `\`${value}\`` : describeValue(value);
        const hint = typeof value === "string" ? didYouMean(value, options) : "";
        return at(`unknown ${issue.discriminator} ${shown}${hint}: use one of ${options.join(", ")}`);
      }
      const expected = unionExpectation(issue);
      return at(expected ? `must be ${expected}, not ${describeValue(value)}` : issue.message);
    }
    case "invalid_type":
      if (value === null) return at(`has no value: give it ${typeNoun(issue.expected)}`);
      return at(`must be ${typeNoun(issue.expected)}, not ${describeValue(value)}${quoteHint(issue.expected, value)}`);
    case "invalid_value": {
      const options = issue.values.map(String);
      const shown = typeof value === "string" ? `\`${value}\`` : describeValue(value);
      const hint = typeof value === "string" ? didYouMean(value, options) : "";
      const what = typeof last === "string" ? `a valid \`${last}\`` : "allowed here";
      return at(`${shown} is not ${what}${hint}: use one of ${options.join(", ")}`);
    }
    case "too_small":
    case "too_big":
      return at(sizeMessage(issue, value));
    case "invalid_format":
      return at(`${issue.message} (got ${describeValue(value)})`);
    case "invalid_key": {
      const reason = issue.issues[0]?.message ?? issue.message;
      return at(`${reason} (got \`${String(last)}\`)`, "key");
    }
    default:
      return at(issue.message);
  }
}

/** Turns zod's issues into findings with messages that say what to fix. */
export function findingsFromZod(error: z.ZodError, data: unknown, root: z.ZodType): Finding[] {
  const translated = error.issues.flatMap((issue) => translate(issue, data, root));
  // `langauge:` yields both "unknown key" and "missing `language`"; the first already says it all.
  const suggested = new Set(
    translated
      .filter((t) => t.suggestion !== undefined)
      .map((t) => formatPath([...t.finding.path.slice(0, -1), t.suggestion ?? ""])),
  );
  return translated
    .filter((t) => t.missing === undefined || !suggested.has(formatPath(t.finding.path)))
    .map((t) => t.finding);
}
