import type { ExpressionScope, ScopeName } from "./expression-scope";
import { NAME, expressionBefore, unquote, written } from "./output-paths";

/**
 * The names to offer where the cursor is in an expression: the roots an expression sees, the names under each
 * (variables, steps, a step's result fields, the execution's fields, secrets, approval groups) and JSONata's
 * functions. The fields of a step's output are offered by output-paths.ts.
 */

export interface NameOption {
  label: string;
  /** What completing it writes over the word: the name as JSONata reads it. */
  apply: string;
  detail?: string;
  info?: string;
}

export interface NameCompletion {
  /** Column in the line where the word being completed starts. */
  from: number;
  word: string;
  options: NameOption[];
}

const ROOTS: Record<string, string> = {
  vars: "the execution's variables",
  steps: "the result of each step that has run: output, status, duration, error",
  execution: "id, workflowId, workflowName, triggerSource, startedAt",
  secrets: "the owner's secrets, by name",
  item: "the current item of the foreach",
  approval: "the rows the reviewer approved, by group",
};

const STEP_FIELDS: ScopeName[] = [
  { name: "output", detail: "what the step gave" },
  { name: "status", detail: "COMPLETED, FAILED, SKIPPED…" },
  { name: "duration", detail: "milliseconds" },
  { name: "error", detail: "the failure's message, or null" },
];

const EXECUTION_FIELDS: ScopeName[] = [
  { name: "id" },
  { name: "workflowId" },
  { name: "workflowName" },
  { name: "triggerSource", detail: "open_api, webhook, schedule…" },
  { name: "startedAt", detail: "ISO-8601 time" },
];

/** JSONata's functions with their arguments ($eval left out: the service's expressions are not code to build). */
const FUNCTIONS: Record<string, string> = {
  string: "(value, prettify?)",
  length: "(str)",
  substring: "(str, start, length?)",
  substringBefore: "(str, chars)",
  substringAfter: "(str, chars)",
  uppercase: "(str)",
  lowercase: "(str)",
  trim: "(str)",
  pad: "(str, width, char?)",
  contains: "(str, pattern)",
  split: "(str, separator, limit?)",
  join: "(array, separator?)",
  match: "(str, pattern, limit?)",
  replace: "(str, pattern, replacement, limit?)",
  base64encode: "(str)",
  base64decode: "(str)",
  encodeUrlComponent: "(str)",
  encodeUrl: "(str)",
  decodeUrlComponent: "(str)",
  decodeUrl: "(str)",
  number: "(value)",
  abs: "(number)",
  floor: "(number)",
  ceil: "(number)",
  round: "(number, precision?)",
  power: "(base, exponent)",
  sqrt: "(number)",
  random: "()",
  formatNumber: "(number, picture, options?)",
  formatBase: "(number, radix?)",
  formatInteger: "(number, picture)",
  parseInteger: "(string, picture)",
  sum: "(array)",
  max: "(array)",
  min: "(array)",
  average: "(array)",
  count: "(array)",
  append: "(array1, array2)",
  sort: "(array, function?)",
  reverse: "(array)",
  shuffle: "(array)",
  distinct: "(array)",
  zip: "(array1, …)",
  keys: "(object)",
  lookup: "(object, key)",
  spread: "(object)",
  merge: "(array<object>)",
  each: "(object, function)",
  sift: "(object, function)",
  error: "(message)",
  assert: "(condition, message)",
  type: "(value)",
  boolean: "(value)",
  not: "(value)",
  exists: "(value)",
  map: "(array, function)",
  filter: "(array, function)",
  single: "(array, function)",
  reduce: "(array, function, init?)",
  now: "(picture?, timezone?)",
  millis: "()",
  fromMillis: "(number, picture?, timezone?)",
  toMillis: "(timestamp, picture?)",
};

/** A dotted path ending at the cursor, not itself after a dot, a bracket or a name's end. */
const PATH_AT_END = new RegExp(`(?<![\\w$.\`\\])])((?:${NAME}\\.)*)(\\$?[A-Za-z0-9_]*)$`);

function named(names: readonly ScopeName[]): NameOption[] {
  return names.flatMap((n) => {
    const apply = written(n.name);
    return apply === null
      ? []
      : [{ label: n.name, apply, ...(n.detail ? { detail: n.detail } : {}), ...(n.info ? { info: n.info } : {}) }];
  });
}

function optionsFor(
  path: readonly string[],
  word: string,
  scopeOf: () => ExpressionScope,
  secrets: readonly string[],
): NameOption[] {
  if (path.length === 0) {
    if (word.startsWith("$"))
      return Object.entries(FUNCTIONS).map(([name, args]) => ({ label: `$${name}`, apply: `$${name}`, detail: args }));
    const scope = scopeOf();
    return Object.entries(ROOTS)
      .filter(([root]) =>
        root === "item" ? scope.inForeach : root === "approval" ? scope.approvalGroups !== null : true,
      )
      .map(([root, detail]) => ({ label: root, apply: root, detail }));
  }
  const [root, ...rest] = path;
  if (rest.length === 0) {
    if (root === "vars") return named(scopeOf().variables);
    if (root === "steps") return named(scopeOf().steps);
    if (root === "execution") return named(EXECUTION_FIELDS);
    if (root === "secrets") return named(secrets.map((name) => ({ name })));
    if (root === "approval") return named((scopeOf().approvalGroups ?? []).map((name) => ({ name })));
  }
  if (root === "steps" && rest.length === 1) return named(STEP_FIELDS);
  return [];
}

/**
 * What to offer where `before` (the line up to the cursor) ends in an expression; null outside one, after a path into
 * data (`steps.x.output.…`, `item.…`), or with nothing to offer. A bare root is offered once a letter is typed, or when
 * asked (`explicit`). `scopeOf` reads the whole text: it is asked only where a name of the scope is to be offered.
 */
export function expressionNamesAt(
  before: string,
  scopeOf: () => ExpressionScope,
  secrets: readonly string[],
  explicit: boolean,
): NameCompletion | null {
  const expression = expressionBefore(before);
  if (!expression) return null;
  const match = PATH_AT_END.exec(expression.text);
  if (!match) return null;
  const path = [...match[1]!.matchAll(new RegExp(`(${NAME})\\.`, "g"))].map((m) => unquote(m[1]!));
  const word = match[2]!;
  if (path.length === 0 && word === "" && !explicit) return null;
  const options = optionsFor(path, word, scopeOf, secrets);
  if (options.length === 0) return null;
  return { from: expression.at + match.index + match[1]!.length, word, options };
}
