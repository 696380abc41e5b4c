import { isMap, isScalar, isSeq, type Pair, type YAMLMap, type YAMLSeq } from "yaml";
import { STEP_NAME_PATTERN } from "../workflow/schema-basics";
import { formatPath, type PathSegment } from "../workflow/locate";
import { contentEnd } from "./extent";
import type { Source } from "./source";
import { column, commentColumn, lineAt, lineEnd, lineStart, previousLineStart } from "./text";
import type { StepList } from "./types";

/** A step item in the text, with the positions the edits splice at. */
export interface StepSite {
  id: string;
  name: string | undefined;
  type: string | undefined;
  map: YAMLMap;
  list: ListSite;
  /** Position among the steps of its list. */
  index: number;
  path: PathSegment[];
  /** The item's `-` (block) or its first character (flow). */
  start: number;
  /** The end of its value. */
  end: number;
  /** `start`/`end` widened to whole lines and the comment lines that belong to the step (block items only). */
  blockStart: number;
  blockEnd: number;
  children: ListSite[];
}

export interface ListSite {
  ref: StepList;
  seq: YAMLSeq;
  owner: StepSite | undefined;
  branch: string | undefined;
  /** The key whose value the list is, and whether the mapping holding that key is a flow mapping. */
  key: { start: number; end: number; inFlow: boolean };
  /** The column of the items' `-` (block lists). */
  dashCol: number;
  items: StepSite[];
}

export interface StepTree {
  root: ListSite | undefined;
  /** Document order, the top-level list first. */
  lists: ListSite[];
  /** Document order (pre-order: a container before its steps). */
  steps: StepSite[];
  byId: Map<string, StepSite>;
}

export function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => isScalar(pair.key) && pair.key.value === key);
}

export function stringField(map: YAMLMap, key: string): string | undefined {
  const value = pairOf(map, key)?.value;
  return isScalar(value) && typeof value.value === "string" ? value.value : undefined;
}

function keyOf(pair: Pair, inFlow: boolean): ListSite["key"] | undefined {
  const range = isScalar(pair.key) ? pair.key.range : undefined;
  return range ? { start: range[0], end: range[1], inFlow } : undefined;
}

/** Offsets of the `-` of each item of a block sequence, from its source tokens. */
function dashOffsets(seq: YAMLSeq): number[] {
  const token = seq.srcToken;
  if (token?.type !== "block-seq") return [];
  return token.items.flatMap((item) => item.start.filter((t) => t.type === "seq-item-ind").map((t) => t.offset));
}

/**
 * Comment lines belong to the step they are indented under: lines right below a step's last line
 * and indented deeper than its `-` are its trailing comments (often commented-out fields); the
 * lines right above its `-`, indented at least as deep and not taken by the step before, lead
 * it. A blank line ends both runs.
 */
function widenToComments(text: string, list: ListSite): void {
  if (list.seq.flow) return;
  let floor = 0;
  for (const site of list.items) {
    let from = lineStart(text, site.start);
    for (
      let prev = previousLineStart(text, from);
      prev >= floor && commentColumn(text.slice(prev, from)) >= list.dashCol;
      prev = previousLineStart(text, from)
    ) {
      from = prev;
    }
    let to = lineEnd(text, site.end);
    while (to < text.length && commentColumn(lineAt(text, to)) > list.dashCol) to = lineEnd(text, to + 1);
    site.blockStart = from;
    site.blockEnd = to;
    floor = to;
  }
}

/** Every step list and step item, nested ones included, following the structure whatever `type` says. */
export function collectSteps(source: Source): StepTree {
  const { text } = source;
  const tree: StepTree = { root: undefined, lists: [], steps: [], byId: new Map() };

  const walkList = (
    seq: YAMLSeq,
    key: ListSite["key"],
    path: PathSegment[],
    owner: StepSite | undefined,
    branch: string | undefined,
  ): ListSite => {
    const dashes = dashOffsets(seq);
    const list: ListSite = {
      ref: owner ? (branch === undefined ? { parent: owner.id } : { parent: owner.id, branch }) : {},
      seq,
      owner,
      branch,
      key,
      dashCol: dashes[0] === undefined ? 0 : column(text, dashes[0]),
      items: [],
    };
    tree.lists.push(list);
    for (const [i, item] of seq.items.entries()) {
      if (!isMap(item) || !item.range) continue;
      const here = [...path, i];
      const name = stringField(item, "name");
      const id = name !== undefined && STEP_NAME_PATTERN.test(name) && !tree.byId.has(name) ? name : formatPath(here);
      const start = seq.flow ? item.range[0] : (dashes[i] ?? item.range[0]);
      const site: StepSite = {
        id,
        name,
        type: stringField(item, "type"),
        map: item,
        list,
        index: list.items.length,
        path: here,
        start,
        end: contentEnd(item),
        blockStart: start,
        blockEnd: contentEnd(item),
        children: [],
      };
      tree.byId.set(id, site);
      tree.steps.push(site);
      list.items.push(site);
      walkChildren(site, item, here);
    }
    widenToComments(text, list);
    return list;
  };

  const walkChildren = (site: StepSite, map: YAMLMap, path: PathSegment[]): void => {
    const steps = pairOf(map, "steps");
    const stepsKey = steps && keyOf(steps, map.flow === true);
    if (steps && stepsKey && isSeq(steps.value))
      site.children.push(walkList(steps.value, stepsKey, [...path, "steps"], site, undefined));
    const branches = pairOf(map, "branches")?.value;
    if (!isMap(branches)) return;
    for (const pair of branches.items) {
      const key = keyOf(pair, branches.flow === true);
      if (key && isScalar(pair.key) && isSeq(pair.value)) {
        const branch = String(pair.key.value);
        site.children.push(walkList(pair.value, key, [...path, "branches", branch], site, branch));
      }
    }
  };

  const root = source.doc.contents;
  const steps = isMap(root) ? pairOf(root, "steps") : undefined;
  const key = steps && keyOf(steps, isMap(root) && root.flow === true);
  if (steps && key && isSeq(steps.value)) tree.root = walkList(steps.value, key, ["steps"], undefined, undefined);
  return tree;
}

export function findList(tree: StepTree, ref: StepList): ListSite | undefined {
  if (ref.parent === undefined) return tree.root;
  return tree.byId.get(ref.parent)?.children.find((list) => list.branch === ref.branch);
}

/** The step and every step nested in it. */
export function withDescendants(site: StepSite): StepSite[] {
  return [site, ...site.children.flatMap((list) => list.items.flatMap(withDescendants))];
}

/** Names of the top-level `agents`, which an `agent` step must name. */
export function agentNames(source: Source): string[] {
  const root = source.doc.contents;
  const agents = isMap(root) ? pairOf(root, "agents")?.value : undefined;
  return isSeq(agents) ? agents.items.flatMap((agent) => (isMap(agent) ? (stringField(agent, "name") ?? []) : [])) : [];
}
