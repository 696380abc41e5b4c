import {
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  stringify,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
} from "yaml";
import { WfError } from "../errors";
import type { WorkflowIssue } from "./issues";
import type { Workflow } from "./schema";
import { STEP_NAME_PATTERN } from "./schema-basics";
import { YAML_OPTIONS, validateWorkflowText } from "./validate";
import { isPlainObject } from "./value-types";

interface StepLocation {
  map: YAMLMap;
  seq: YAMLSeq;
  index: number;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

export interface InsertPosition {
  after?: string;
  before?: string;
  /** Append to a foreach step's `steps`, or to one branch of a parallel step. */
  parent?: { step: string; branch?: string };
}

type Range = [number, number, number];

function rangeOf(node: unknown): Range {
  const range = (node as Node | null)?.range;
  if (!range) throw new WfError("WORKFLOW_INVALID", "the document has a node without a source position");
  return range;
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key);
}

/** End of a pair's text: its value's end, or its key's end when the value is empty. */
function pairEnd(pair: Pair): number {
  const keyEnd = rangeOf(pair.key)[1];
  const value = pair.value as Node | null;
  return value?.range ? Math.max(value.range[1], keyEnd) : keyEnd;
}

function flowText(value: unknown): string {
  return stringify(value, { collectionStyle: "flow", lineWidth: 0 }).trim();
}

/** Block YAML for `value` whose lines after the first start at `indent`. */
function blockText(value: unknown, indent: string): string {
  return stringify(value, { lineWidth: 0 })
    .replace(/\n$/, "")
    .split("\n")
    .map((line, i) => (i === 0 || line === "" ? line : indent + line))
    .join("\n");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** How a JSONata path names a step: `steps.fetch`, or `steps.\`my-step\`` when `-` would read as minus. */
function stepRef(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `steps.${name}` : `steps.\`${name}\``;
}

/** Keys whose strings are never expressions, so a rename leaves them alone. */
const LITERAL_KEYS = new Set(["name", "code", "description"]);

/**
 * A workflow file being edited, e.g. by the console canvas. Edits splice the source text at the
 * edited nodes' positions, so everything an edit does not touch (comments, blank lines, quoting,
 * flow or block style) prints back byte for byte.
 */
export class WorkflowDocument {
  #text: string;
  #yaml: Document.Parsed;

  /** Throws when `text` is not well-formed YAML; schema problems are left to toWorkflow(). */
  constructor(text: string, yaml?: Document.Parsed) {
    this.#text = text;
    this.#yaml = yaml ?? WorkflowDocument.#parse(text);
  }

  static #parse(text: string): Document.Parsed {
    const doc = parseDocument(text, YAML_OPTIONS);
    const [first] = doc.errors;
    if (first)
      throw new WfError(
        "WORKFLOW_INVALID",
        `not well-formed YAML: ${first.message}`,
        doc.errors.map((e) => e.message),
      );
    return doc;
  }

  toString(): string {
    return this.#text;
  }

  /** Validates the current text, as parseWorkflow does. */
  toWorkflow(): { ok: true; workflow: Workflow } | { ok: false; errors: WorkflowIssue[] } {
    const result = validateWorkflowText(this.#text);
    return result.ok ? { ok: true, workflow: result.workflow } : result;
  }

  /** Sets a field of the named step (nested steps included), replacing or adding the key. */
  setStepField(stepName: string, key: string, value: unknown): void {
    if (key === "name") {
      if (typeof value !== "string") throw new WfError("VALIDATION_FAILED", "a step name must be a string");
      this.renameStep(stepName, value);
      return;
    }
    const { map } = this.#find(stepName);
    const pair = pairOf(map, key);
    if (pair) {
      const start = rangeOf(pair.key)[0];
      let end = pairEnd(pair);
      // Block values end after their last newline; that newline separates this pair from the next.
      if (this.#text[end - 1] === "\n") end--;
      const text = map.flow ? `${key}: ${flowText(value)}` : blockText({ [key]: value }, this.#indentAt(start));
      this.#apply([{ start, end, text }]);
      return;
    }
    const last = map.items[map.items.length - 1];
    if (!last) throw new WfError("VALIDATION_FAILED", `step \`${stepName}\` is an empty mapping`);
    if (map.flow) {
      this.#apply([{ start: pairEnd(last), end: pairEnd(last), text: `, ${key}: ${flowText(value)}` }]);
      return;
    }
    const indent = this.#indentAt(rangeOf(last.key)[0]);
    this.#insertLines(this.#lineEnd(pairEnd(last)), indent + blockText({ [key]: value }, indent) + "\n");
  }

  /** Removes a field of the named step; nothing happens when the step has no such field. */
  deleteStepField(stepName: string, key: string): void {
    if (key === "name" || key === "type") {
      throw new WfError("VALIDATION_FAILED", `every step needs \`${key}\`; it cannot be deleted`);
    }
    const { map } = this.#find(stepName);
    const index = map.items.findIndex((p) => isScalar(p.key) && p.key.value === key);
    const pair = map.items[index];
    if (!pair) return;
    const start = rangeOf(pair.key)[0];
    const next = map.items[index + 1];
    if (map.flow) {
      const prev = map.items[index - 1];
      if (next) this.#apply([{ start, end: rangeOf(next.key)[0], text: "" }]);
      else if (prev) this.#apply([{ start: pairEnd(prev), end: pairEnd(pair), text: "" }]);
      else this.#apply([{ start, end: pairEnd(pair), text: "" }]);
      return;
    }
    const lineStart = this.#lineStart(start);
    const sharesLine = this.#text.slice(lineStart, start).trim() !== "";
    // The first key of a `- key: value` item shares its line with the dash, which must stay.
    if (sharesLine && next) this.#apply([{ start, end: rangeOf(next.key)[0], text: "" }]);
    else this.#apply([{ start: sharesLine ? start : lineStart, end: this.#lineEnd(pairEnd(pair)), text: "" }]);
  }

  /** Inserts a step after or before a named step (at any depth), into a parent, or at the end. */
  insertStep(step: object, position: InsertPosition = {}): void {
    const name = isPlainObject(step) ? step.name : undefined;
    if (typeof name !== "string") throw new WfError("VALIDATION_FAILED", "a new step needs a string `name`");
    if (this.#locations().some((l) => l.map.get("name") === name)) {
      throw new WfError("CONFLICT", `a step named \`${name}\` already exists`);
    }
    if (position.before !== undefined) {
      const { seq, map } = this.#find(position.before);
      this.#insertBefore(seq, map, step);
      return;
    }
    if (position.after !== undefined) {
      const { seq, map } = this.#find(position.after);
      this.#insertAfter(seq, map, step);
      return;
    }
    const seq = position.parent ? this.#childSeq(position.parent) : this.#topLevelSteps();
    const last = seq.items[seq.items.length - 1];
    if (last) this.#insertAfter(seq, last as Node, step);
    // Only a flow list can be empty: `steps: []`.
    else this.#apply([{ start: rangeOf(seq)[0], end: rangeOf(seq)[1], text: `[ ${flowText(step)} ]` }]);
  }

  /** Removes the named step, with everything nested in it. */
  removeStep(name: string): void {
    const { seq, index, map } = this.#find(name);
    const [start, end] = rangeOf(map);
    if (seq.flow) {
      const next = seq.items[index + 1];
      const prev = seq.items[index - 1];
      if (next) this.#apply([{ start, end: rangeOf(next)[0], text: "" }]);
      else if (prev) this.#apply([{ start: rangeOf(prev)[1], end, text: "" }]);
      else this.#apply([{ start, end, text: "" }]);
      return;
    }
    const from = this.#lineStart(start);
    let to = this.#lineEnd(end);
    // Between two blank lines, take one with the step so the gap does not double.
    if (from > 0 && this.#text.slice(this.#lineStart(from - 1), from).trim() === "") {
      while (to < this.#text.length && this.#text.slice(to, this.#lineEnd(to + 1)).trim() === "")
        to = this.#lineEnd(to + 1);
    }
    this.#apply([{ start: from, end: to, text: "" }]);
  }

  /** Renames a step and rewrites `steps.<old>` references in templates and conditions. */
  renameStep(oldName: string, newName: string): void {
    if (oldName === newName) return;
    if (!STEP_NAME_PATTERN.test(newName)) {
      throw new WfError(
        "VALIDATION_FAILED",
        `\`${newName}\` is not a valid step name: start with a letter or \`_\` and use only letters, digits, \`_\` and \`-\``,
      );
    }
    if (this.#locations().some((l) => l.map.get("name") === newName)) {
      throw new WfError("CONFLICT", `a step named \`${newName}\` already exists`);
    }
    const { map } = this.#find(oldName);
    const [start, end] = rangeOf(pairOf(map, "name")?.value);
    const edits: Edit[] = [{ start, end, text: flowText(newName) }];
    const pattern = new RegExp(
      `(?<![A-Za-z0-9_])steps\\.(?:${escapeRegExp(oldName)}(?![A-Za-z0-9_])|\`${escapeRegExp(oldName)}\`)`,
      "g",
    );
    const visit = (node: unknown, key: string | undefined): void => {
      if (isMap(node)) {
        for (const pair of node.items) visit(pair.value, isScalar(pair.key) ? String(pair.key.value) : undefined);
      } else if (isSeq(node)) {
        for (const item of node.items) visit(item, key);
      } else if (isScalar(node) && typeof node.value === "string" && !LITERAL_KEYS.has(key ?? "")) {
        const [from, to] = rangeOf(node);
        const source = this.#text.slice(from, to);
        const renamed = source.replace(pattern, stepRef(newName));
        if (renamed !== source) edits.push({ start: from, end: to, text: renamed });
      }
    };
    visit(this.#yaml.contents, undefined);
    this.#apply(edits);
  }

  #locations(): StepLocation[] {
    const out: StepLocation[] = [];
    const walk = (seq: unknown): void => {
      if (!isSeq(seq)) return;
      for (const [index, item] of seq.items.entries()) {
        if (!isMap(item)) continue;
        out.push({ map: item, seq, index });
        walk(item.get("steps", true));
        const branches = item.get("branches", true);
        if (isMap(branches)) for (const pair of branches.items) walk(pair.value);
      }
    };
    const root = this.#yaml.contents;
    if (isMap(root)) walk(root.get("steps", true));
    return out;
  }

  #find(name: string): StepLocation {
    const found = this.#locations().find((l) => l.map.get("name") === name);
    if (!found) throw new WfError("NOT_FOUND", `no step named \`${name}\``);
    return found;
  }

  #topLevelSteps(): YAMLSeq {
    const root = this.#yaml.contents;
    const steps = isMap(root) ? root.get("steps", true) : undefined;
    if (!isSeq(steps)) throw new WfError("VALIDATION_FAILED", "the workflow has no `steps` list to insert into");
    return steps;
  }

  #childSeq(parent: { step: string; branch?: string }): YAMLSeq {
    const { map } = this.#find(parent.step);
    const branches = map.get("branches", true);
    const seq =
      parent.branch === undefined
        ? map.get("steps", true)
        : isMap(branches)
          ? branches.get(parent.branch, true)
          : undefined;
    if (!isSeq(seq)) {
      const what = parent.branch === undefined ? "a `steps` list" : `a branch \`${parent.branch}\``;
      throw new WfError("NOT_FOUND", `step \`${parent.step}\` has no ${what} to insert into`);
    }
    return seq;
  }

  #insertAfter(seq: YAMLSeq, item: Node, step: object): void {
    const end = rangeOf(item)[1];
    if (seq.flow) {
      this.#apply([{ start: end, end, text: `, ${flowText(step)}` }]);
      return;
    }
    const indent = this.#indentAt(rangeOf(seq)[0]);
    this.#insertLines(this.#lineEnd(end), indent + blockText([step], indent) + "\n");
  }

  #insertBefore(seq: YAMLSeq, item: Node, step: object): void {
    const start = rangeOf(item)[0];
    if (seq.flow) {
      this.#apply([{ start, end: start, text: `${flowText(step)}, ` }]);
      return;
    }
    // Comment lines right above a step describe it, so the new step goes above them.
    let at = this.#lineStart(start);
    while (at > 0) {
      const prev = this.#lineStart(at - 1);
      if (!this.#text.slice(prev, at).trim().startsWith("#")) break;
      at = prev;
    }
    const indent = this.#indentAt(rangeOf(seq)[0]);
    this.#insertLines(at, indent + blockText([step], indent) + "\n");
  }

  #insertLines(at: number, text: string): void {
    const needsNewline = at === this.#text.length && at > 0 && !this.#text.endsWith("\n");
    this.#apply([{ start: at, end: at, text: needsNewline ? `\n${text}` : text }]);
  }

  #lineStart(offset: number): number {
    return this.#text.lastIndexOf("\n", offset - 1) + 1;
  }

  /** Start of the line after the one holding the character before `offset`. */
  #lineEnd(offset: number): number {
    if (offset > 0 && this.#text[offset - 1] === "\n") return offset;
    const newline = this.#text.indexOf("\n", offset);
    return newline < 0 ? this.#text.length : newline + 1;
  }

  #indentAt(offset: number): string {
    return " ".repeat(offset - this.#lineStart(offset));
  }

  #apply(edits: Edit[]): void {
    let text = this.#text;
    for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
      text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
    }
    this.#yaml = WorkflowDocument.#parse(text);
    this.#text = text;
  }
}
