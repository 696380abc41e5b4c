/**
 * Expressions for a field of a step's output, and the fields to offer after `steps.<name>.output.`
 * in an expression. The expression language is JSONata: a name that is not a plain identifier is
 * written in backticks, and one holding a backtick is read with `$lookup`.
 */

/** A key of an object, or an index of an array. */
export type PathSegment = string | number;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How `name` is written after a dot: bare, or in backticks; null when neither can hold it. */
export function written(name: string): string | null {
  if (IDENTIFIER.test(name)) return name;
  return name.includes("`") ? null : `\`${name}\``;
}

/**
 * The expression reading `path` of step `step`'s output, e.g. `steps.fetch.output.items[0].id`; of a foreach's current
 * item for a `step` of null, e.g. `item.title`.
 */
export function outputExpression(step: string | null, path: readonly PathSegment[]): string {
  let text = step === null ? "item" : `steps.${written(step) ?? step}.output`;
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else {
      const name = written(segment);
      text = name === null ? `$lookup(${text}, ${JSON.stringify(segment)})` : `${text}.${name}`;
    }
  }
  return text;
}

/** The template that puts the value of `path` in a text: `{{ steps.fetch.output.items[0].id }}`. */
export function outputTemplate(step: string | null, path: readonly PathSegment[]): string {
  return `{{ ${outputExpression(step, path)} }}`;
}

/** The value at `path` in `value`, or undefined; a name on an array reads its first item, as completion shows it. */
export function valueAt(value: unknown, path: readonly PathSegment[]): unknown {
  let at = value;
  for (const segment of path) {
    if (typeof segment === "number") at = Array.isArray(at) ? at[segment] : undefined;
    else {
      if (Array.isArray(at)) at = at[0];
      at = isRecord(at) && Object.hasOwn(at, segment) ? at[segment] : undefined;
    }
  }
  return at;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export interface FieldOption {
  /** The key as it is in the output. */
  label: string;
  /** What completing it writes over `word`. */
  apply: string;
  /** A short hint of the field's value. */
  detail: string;
}

export interface FieldCompletion {
  /** What is typed of the field's name so far (it is replaced). */
  word: string;
  options: FieldOption[];
}

/** A name in a path: bare (step names may hold `-`), or in backticks. */
export const NAME = "(?:[A-Za-z_][A-Za-z0-9_-]*|`[^`]*`)";
const AFTER_OUTPUT = new RegExp(`steps\\.(${NAME})\\.output((?:\\.${NAME}|\\[\\d+\\])*)\\.([A-Za-z0-9_]*|\`[^\`]*)$`);
const SEGMENT = new RegExp(`\\.(${NAME})|\\[(\\d+)\\]`, "g");

export const unquote = (name: string) => (name.startsWith("`") ? name.slice(1, -1) : name);

function hint(value: unknown): string {
  if (Array.isArray(value)) return `list of ${value.length}`;
  if (isRecord(value)) return "object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 24 ? `${text.slice(0, 23)}…` : text;
}

/**
 * The expression the cursor is in, up to the cursor, where `before` is its line up to the cursor: inside `{{ … }}`,
 * or a `condition`'s value (a bare expression); `at` is the column it starts at. Null outside one.
 */
export function expressionBefore(before: string): { text: string; at: number } | null {
  const open = before.lastIndexOf("{{");
  if (open >= 0 && before.indexOf("}}", open) < 0) return { text: before.slice(open + 2), at: open + 2 };
  const condition = /^\s*(?:-\s+)*condition:\s*["']?/.exec(before);
  return condition ? { text: before.slice(condition[0].length), at: condition[0].length } : null;
}

/**
 * The fields to offer where `before` (the text up to the cursor) ends in an expression with
 * `steps.<name>.output.<path>.<word>`, from the known outputs by step name; null elsewhere.
 */
export function outputFieldsAt(before: string, known: Readonly<Record<string, unknown>>): FieldCompletion | null {
  const expression = expressionBefore(before);
  const match = expression && AFTER_OUTPUT.exec(expression.text);
  if (!match) return null;
  const step = unquote(match[1]!);
  if (!Object.hasOwn(known, step)) return null;
  const path: PathSegment[] = [...match[2]!.matchAll(SEGMENT)].map((m) =>
    m[2] === undefined ? unquote(m[1]!) : Number(m[2]),
  );
  let value = valueAt(known[step], path);
  if (Array.isArray(value)) value = value[0];
  if (!isRecord(value)) return null;
  const options = Object.entries(value).flatMap(([key, field]): FieldOption[] => {
    const apply = written(key);
    return apply === null ? [] : [{ label: key, apply, detail: hint(field) }];
  });
  return options.length === 0 ? null : { word: match[3]!, options };
}

/** A step's output path as written in an expression: `steps.<name>.output` and what follows it. */
const OUTPUT_PATH = new RegExp(`(?<![\\w$.\`])steps\\.(${NAME})\\.output((?:\\.${NAME}|\\[\\d+\\])*)`, "g");

export interface OutputPathAt {
  step: string;
  path: PathSegment[];
  /** Columns of the path in the line, `[from, to)`. */
  from: number;
  to: number;
}

/**
 * The `steps.<name>.output…` path of an expression under `column` of `line`, cut after the segment the column is on
 * (over `items` of `steps.f.output.items[0].id`, the path to `items`); null elsewhere.
 */
export function outputPathAt(line: string, column: number): OutputPathAt | null {
  for (const match of line.matchAll(OUTPUT_PATH)) {
    const to = match.index + match[0].length;
    if (column < match.index || column > to) continue;
    const before = line.slice(0, match.index);
    if (expressionBefore(before + match[0]) === null) return null;
    const head = match.index + match[0].length - match[2]!.length;
    const path: PathSegment[] = [];
    let end = head;
    for (const segment of match[2]!.matchAll(SEGMENT)) {
      if (column < head + segment.index) break;
      path.push(segment[2] === undefined ? unquote(segment[1]!) : Number(segment[2]));
      end = head + segment.index + segment[0].length;
    }
    return { step: unquote(match[1]!), path, from: match.index, to: end };
  }
  return null;
}
