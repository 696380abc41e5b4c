import { isCollection, isMap, isScalar, type Node, type YAMLMap } from "yaml";
import type { PathSegment } from "../workflow/locate";
import { collectionPair, readsCollection, replaceValue, type Writing } from "./collections";
import { runOperation, type Plan } from "./edits";
import { keyComment, typedBlock } from "./field-text";
import { pairEnd } from "./extent";
import { seqIndent } from "./layout";
import { addPair, removePair } from "./pairs";
import { checkedEdit, scalarEdit, scalarText, type ScalarValue } from "./scalars";
import type { Source } from "./source";
import { pairOf, type StepSite, type StepTree } from "./steps";
import { column, lineEnd } from "./text";
import type { CollectionValue, EditResult, Modifier, TextEdit } from "./types";

export interface SetFieldOp {
  id: string;
  /** A key of the step, or a path into one of its mappings, e.g. `["retry", "max_attempts"]`. */
  key: string | readonly string[];
  value: ScalarValue;
  /**
   * The comment to keep at the end of the key's line when the value replaces a block list or mapping whose key's line
   * has one (the first line of the panel's box, which showed it there, see writtenFields); without it, it goes too.
   */
  comment?: string;
}

export interface SetCollectionOp {
  id: string;
  key: string | readonly string[];
  value: CollectionValue;
  /**
   * The value as the person typed it, comments and all: written as it is when it is a block list or mapping (see
   * typedBlock) and reads as `value`; else `value` is written.
   */
  text?: string;
}

export interface RemoveFieldOp {
  id: string;
  key: string | readonly string[];
}

export interface ToggleModifierOp {
  id: string;
  modifier: Modifier;
}

/** Structure has its own operations: a name changes with its references, lists by moving steps. */
const NOT_FIELDS: Readonly<Record<string, string>> = {
  name: "rename the step instead: that also updates the references to it",
  steps: "`steps` is the foreach's list: add, move or delete its steps instead",
  branches: "`branches` holds the parallel's lists: add, move or delete their steps instead",
};

/** New keys go above a container's lists, so its header stays together. */
const BEFORE_LISTS = ["steps", "branches"];

export interface Field {
  site: StepSite;
  map: YAMLMap;
  key: string;
  path: PathSegment[];
}

/** The mapping a step's field is in, and its key there; or why there is none to change. */
export function findField(tree: StepTree, id: string, key: string | readonly string[]): Field | string {
  const site = tree.byId.get(id);
  if (!site) return `no step \`${id}\``;
  const keys = typeof key === "string" ? [key] : [...key];
  const last = keys.pop();
  if (last === undefined) return "name the field to change";
  const refusal = NOT_FIELDS[keys[0] ?? last];
  if (refusal !== undefined) return refusal;
  let map = site.map;
  for (const segment of keys) {
    const value = pairOf(map, segment)?.value;
    if (!isMap(value)) return `step \`${id}\` has no mapping \`${segment}\` to set a field in`;
    map = value;
  }
  return { site, map, key: last, path: [...site.path, ...keys, last] };
}

export function setPlan(source: Source, tree: StepTree, op: SetFieldOp): Plan | string {
  const field = findField(tree, op.id, op.key);
  if (typeof field === "string") return field;
  const { map, key, path } = field;
  const pair = pairOf(map, key);
  const inFlow = map.flow === true;
  const keyText = scalarText(key, 0, inFlow);
  const edit =
    pair && isScalar(pair.value) && pair.value.srcToken && pair.value.range && pair.value.range[1] > pair.value.range[0]
      ? scalarEdit(source.text, pair.value, path, op.value, inFlow)
      : checkedEdit(source.text, path, op.value, (force) => {
          const render = (keyCol: number, flow: boolean): string =>
            `${keyText}: ${scalarText(op.value, keyCol, flow, force)}`;
          if (!pair) return addPair(source.text, map, render, BEFORE_LISTS);
          // A collection or empty value is written anew from the key on; the lines around it stay. A block value's
          // last line goes whole: the comment at its end was about it, as those on its other lines were.
          const from = (pair.key as Node).range?.[0] ?? 0;
          let to = isCollection(pair.value) && !pair.value.flow ? lineEnd(source.text, pairEnd(pair)) : pairEnd(pair);
          if (source.text[to - 1] === "\n") to--;
          const insert = render(column(source.text, from), inFlow);
          // The comment asked for goes at the end of the key's line, after the value's first line, where that line can
          // end in one: a value on one line, or a block scalar's header.
          const [first = "", ...rest] = insert.split("\n");
          const comment = op.comment === undefined ? undefined : keyComment(source.text, pair);
          const ends = comment && (rest.length === 0 || /^[|>]/.test(first.slice(keyText.length + 1).trim()));
          if (!comment || !ends) return { from, to, insert };
          const spaces = source.text.slice(comment.start, comment.from);
          return { from, to, insert: [`${first}${spaces}${op.comment}`, ...rest].join("\n") };
        });
  if (!edit) return `\`${String(op.value)}\` cannot be written as the value of \`${key}\``;
  return { edits: [edit], id: field.site.id };
}

export function setField(text: string, op: SetFieldOp): EditResult {
  return runOperation(text, (source, tree) => setPlan(source, tree, op));
}

function setCollectionPlan(source: Source, tree: StepTree, op: SetCollectionOp): Plan | string {
  const field = findField(tree, op.id, op.key);
  if (typeof field === "string") return field;
  const { map, key, path } = field;
  const pair = pairOf(map, key);
  const inFlow = map.flow === true;
  const indentSeq = seqIndent(source, tree) > 0;
  const written = (writing: Writing): TextEdit[] =>
    pair
      ? replaceValue(source.text, source.doc, pair, op.value, inFlow, indentSeq, writing)
      : [
          addPair(
            source.text,
            map,
            (keyCol, flow) => collectionPair(scalarText(key, 0, flow), op.value, keyCol, flow, indentSeq, writing),
            BEFORE_LISTS,
          ),
        ];
  const lines = op.text === undefined ? undefined : typedBlock(op.text);
  const ways: Writing[] = [
    ...(lines === undefined ? [] : [{ kind: "typed", lines } as const]),
    { kind: "kept" },
    { kind: "fresh" },
  ];
  // Typed text may not read as the value where it goes (an alias of an anchor elsewhere); kept as written, an entry may
  // hold an alias whose anchor went, or now comes after it: then the value is written anew.
  const edits = ways.map(written).find((each) => readsCollection(source.text, each, path, op.value));
  if (!edits) return `this list or mapping cannot be written as the value of \`${key}\``;
  // Text that says what the file says (a comment's spaces aside) changes nothing: no step in the undo history.
  return { edits: edits.filter((edit) => source.text.slice(edit.from, edit.to) !== edit.insert), id: field.site.id };
}

/**
 * Sets a field to a list or a mapping: as typed (`text`), or written in the style around it (see replaceValue); the
 * rest of the text stays as it is. A scalar is setField's.
 */
export function setCollection(text: string, op: SetCollectionOp): EditResult {
  return runOperation(text, (source, tree) => setCollectionPlan(source, tree, op));
}

function removePlan(source: Source, tree: StepTree, op: RemoveFieldOp): Plan | string {
  const field = findField(tree, op.id, op.key);
  if (typeof field === "string") return field;
  if (field.key === "type" && field.map === field.site.map) return "every step needs a `type`";
  const pair = pairOf(field.map, field.key);
  if (!pair) return `step \`${op.id}\` has no field \`${field.key}\``;
  return { edits: [removePair(source.text, field.map, pair)], id: field.site.id };
}

export function removeField(text: string, op: RemoveFieldOp): EditResult {
  return runOperation(text, (source, tree) => removePlan(source, tree, op));
}

/** Each modifier as written when switched on: the smallest block that validates, for the user to adjust. */
function renderModifier(modifier: Modifier, keyCol: number, inFlow: boolean): string {
  switch (modifier) {
    case "condition":
      return 'condition: "true"';
    case "retry":
      return "retry: { max_attempts: 3, backoff: exponential }";
    case "timeout":
      return "timeout: 60";
    case "manual_approval": {
      if (inFlow) return "manual_approval: { message: Continue?, timeout: 3600 }";
      const pad = " ".repeat(keyCol + 2);
      return `manual_approval:\n${pad}message: Continue?\n${pad}timeout: 3600`;
    }
  }
}

/** Adds a modifier's default block when the step has none, or removes the one it has. */
export function toggleModifier(text: string, op: ToggleModifierOp): EditResult {
  return runOperation(text, (source, tree) => {
    const site = tree.byId.get(op.id);
    if (!site) return `no step \`${op.id}\``;
    const pair = pairOf(site.map, op.modifier);
    const edit = pair
      ? removePair(source.text, site.map, pair)
      : addPair(source.text, site.map, (keyCol, inFlow) => renderModifier(op.modifier, keyCol, inFlow), BEFORE_LISTS);
    return { edits: [edit], id: site.id };
  });
}
