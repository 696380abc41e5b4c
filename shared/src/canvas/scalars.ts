import { CST, Scalar, parseDocument, stringify } from "yaml";
import type { PathSegment } from "../workflow/locate";
import { YAML_OPTIONS } from "../workflow/validate";
import { applyEdits } from "./edits";
import type { TextEdit } from "./types";

export type ScalarValue = string | number | boolean | null;

/**
 * A multi-line string inside flow text: YAML's double quotes read JSON's escapes, and one line cannot be mis-indented.
 */
function oneLine(value: string): string {
  return JSON.stringify(value);
}

function styleFor(value: ScalarValue, forceQuote: boolean, inFlow: boolean): Scalar.Type | undefined {
  if (typeof value !== "string") return Scalar.PLAIN;
  if (forceQuote) return Scalar.QUOTE_DOUBLE;
  return value.includes("\n") && !inFlow ? Scalar.BLOCK_LITERAL : undefined;
}

/**
 * Rewrites a scalar through its source token: only its own span changes, and it keeps its
 * quoting and any comment after it, unless the new value needs another style.
 */
function replaceToken(node: Scalar, value: ScalarValue, inFlow: boolean, forceQuote: boolean): TextEdit | undefined {
  const token = node.srcToken;
  if (!token || !CST.isScalar(token) || !node.range) return undefined;
  if (inFlow && typeof value === "string" && value.includes("\n"))
    return { from: node.range[0], to: node.range[1], insert: oneLine(value) };
  const copy = structuredClone(token);
  const type = styleFor(value, forceQuote, inFlow);
  CST.setScalarValue(copy, String(value), { afterKey: true, inFlow, ...(type === undefined ? {} : { type }) });
  return narrowed(token.offset, CST.stringify(token), CST.stringify(copy));
}

/**
 * The edit from `before` to `after` at `offset`, without the end they share: the token's trailing comment and newline.
 */
function narrowed(offset: number, before: string, after: string): TextEdit {
  let tail = 0;
  while (
    tail < before.length &&
    tail < after.length &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  return { from: offset, to: offset + before.length - tail, insert: after.slice(0, after.length - tail) };
}

/** A new scalar's text for a key at column `keyCol`, without a final newline. */
export function scalarText(value: ScalarValue, keyCol: number, inFlow: boolean, forceQuote = false): string {
  if (typeof value !== "string") return stringify(value).trim();
  if (inFlow && value.includes("\n")) return oneLine(value);
  const type = styleFor(value, forceQuote, inFlow);
  const token = CST.createScalarToken(value, {
    indent: keyCol + 2,
    inFlow,
    implicitKey: false,
    ...(type === undefined ? {} : { type }),
  });
  return CST.stringify(token).replace(/\n$/, "");
}

function readsAs(text: string, edit: TextEdit, path: readonly PathSegment[], value: ScalarValue): boolean {
  const doc = parseDocument(applyEdits(text, [edit]).text, YAML_OPTIONS);
  return doc.errors.length === 0 && doc.getIn(path) === value;
}

/**
 * The edit that makes the scalar at `path` read `value`, tried in the writer's style first: a
 * style that would read back as something else (`12` or `true` for a string) is quoted instead.
 */
export function checkedEdit(
  text: string,
  path: readonly PathSegment[],
  value: ScalarValue,
  make: (forceQuote: boolean) => TextEdit | undefined,
): TextEdit | undefined {
  const edit = make(false);
  if (!edit || readsAs(text, edit, path, value)) return edit;
  const quoted = make(true);
  return quoted && readsAs(text, quoted, path, value) ? quoted : undefined;
}

/** The edit that sets an existing scalar node, checked. */
export function scalarEdit(
  text: string,
  node: Scalar,
  path: readonly PathSegment[],
  value: ScalarValue,
  inFlow: boolean,
): TextEdit | undefined {
  return checkedEdit(text, path, value, (force) => replaceToken(node, value, inFlow, force));
}
