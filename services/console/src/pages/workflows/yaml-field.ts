import { isMap, parseDocument, stringify, visit, type Document } from "yaml";
import { isWholeTemplate } from "@wf/shared/workflow";
import type { FieldValue } from "./field-change";
import type { FormField, Kind } from "./step-form";

/** What a YAML field's text commits: a value to write, the field's removal, or what to fix first. */
export type YamlCommit = { kind: "set"; value: FieldValue } | { kind: "remove" } | { kind: "problem"; message: string };

/**
 * A value as the field's text: YAML, except that one whole `{{ }}` template is shown as it is (written bare in YAML, it
 * would read as a mapping).
 */
export function yamlText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string" && isWholeTemplate(value)) return value;
  return stringify(value, { lineWidth: 0 }).replace(/\n$/, "");
}

const KIND_WORDS: Record<Exclude<Kind, "any"> | "null", string> = {
  string: "a string",
  number: "a number",
  integer: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a mapping",
  null: "null",
};

function kindOf(value: unknown): Exclude<Kind, "any"> | "null" {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as "string" | "boolean" | "object";
}

function allows(kinds: readonly Kind[], kind: Exclude<Kind, "any"> | "null"): boolean {
  if (kinds.includes("any")) return true;
  return kind !== "null" && (kinds.includes(kind) || (kind === "integer" && kinds.includes("number")));
}

/** The field's kinds in words: "a list or a string". */
function described(kinds: readonly Kind[]): string {
  return kinds.map((kind) => (kind === "any" ? "any value" : KIND_WORDS[kind])).join(" or ");
}

/**
 * Whether YAML read a `{{ }}` template's braces as mappings (`total: {{ x }}` as `{total: {{x: null}: null}}`): a
 * mapping whose key is itself a mapping, which nobody writes on purpose in a step's field.
 */
function bracesReadAsMapping(doc: Document): boolean {
  let found = false;
  visit(doc, {
    Pair(_, pair) {
      if (!isMap(pair.key)) return undefined;
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

/**
 * How to write a template in YAML text: the text itself quoted, when it is one line that may be a string (not a list's
 * item); otherwise a mapping's value quoted.
 */
function quoteTemplates(bare: string, kinds: readonly Kind[]): string {
  const line = bare.trim();
  const text = !line.includes("\n") && !line.startsWith("- ") && allows(kinds, "string");
  const example = text ? JSON.stringify(line) : 'total: "{{ steps.fetch.output.total }}"';
  return `Put text holding a {{ }} template in quotes, or YAML reads its braces as a mapping: ${example}.`;
}

/**
 * Reads a YAML field's text on commit: parsed with `yaml`, and checked against the kinds the field's schema allows.
 * Emptied, an optional field goes; a required one asks for a value. A bare `{{ }}` template, after comment lines or
 * not, is taken as the string; one among other text must be quoted, which a problem says with the text to write.
 */
export function readYamlText(draft: string, field: Pick<FormField, "kinds" | "required">): YamlCommit {
  const kinds = field.kinds ?? ["any"];
  if (draft.trim() === "")
    return field.required
      ? { kind: "problem", message: "This field is required: write a value, or press Escape to go back." }
      : { kind: "remove" };
  // Under comment lines too: the box shows the comment at the end of the key's line as its first line.
  const bare = draft.replace(/^(?:[ \t]*(?:#.*)?\n)+/, "");
  if (isWholeTemplate(bare) && allows(kinds, "string")) return { kind: "set", value: bare.trim() };
  // Silent: a warning (a mapping's key that is itself a collection) is the kind check's to answer.
  const doc = parseDocument(draft, { prettyErrors: false, logLevel: "silent" });
  const template = draft.includes("{{");
  const error = doc.errors[0];
  if (error) {
    const line = draft.slice(0, error.pos[0]).split("\n").length;
    const hint = template ? `. ${quoteTemplates(bare, kinds)}` : "";
    return { kind: "problem", message: `Not valid YAML (line ${line}): ${error.message}${hint}` };
  }
  if (template && bracesReadAsMapping(doc)) return { kind: "problem", message: quoteTemplates(bare, kinds) };
  const value: unknown = doc.toJS();
  const kind = kindOf(value);
  if (!allows(kinds, kind))
    return { kind: "problem", message: `Write ${described(kinds)} here, not ${KIND_WORDS[kind]}.` };
  return { kind: "set", value: value as FieldValue };
}
