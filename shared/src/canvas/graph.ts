import { isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from "yaml";
import { formatPath } from "../workflow/locate";
import { isDuplicateStepIssue } from "../workflow/semantic";
import { contentEnd, pairEnd } from "./extent";
import { findReferences } from "./references";
import { readSource, sourceRange, type Source } from "./source";
import { agentNames, collectSteps, pairOf, stringField, type ListSite, type StepSite, type StepTree } from "./steps";
import type {
  Badge,
  CanvasEdge,
  CanvasGraph,
  CanvasGroup,
  CanvasIssue,
  CanvasNode,
  EdgeKind,
  Modifier,
  SourceRange,
} from "./types";
import { MODIFIERS } from "./types";
import { validated } from "./validation";

function pairRange(source: Source, pair: Pair): SourceRange | undefined {
  const key = (pair.key as Node | null)?.range;
  return key ? sourceRange(source, key[0], pairEnd(pair)) : undefined;
}

function valueText(node: unknown): string | undefined {
  return isScalar(node) && node.value !== null ? String(node.value) : undefined;
}

function modifierLabel(modifier: Modifier, value: unknown): string {
  switch (modifier) {
    case "condition":
      return `if ${valueText(value) ?? "…"}`;
    case "retry": {
      const attempts = isMap(value) ? valueText(value.get("max_attempts", true)) : undefined;
      return attempts === undefined ? "retry" : `retry ×${attempts}`;
    }
    case "timeout":
      return `timeout ${valueText(value) ?? "…"}s`;
    case "manual_approval":
      return "approval";
  }
}

function triggerLabel(trigger: YAMLMap): string {
  const type = stringField(trigger, "type");
  if (type === "schedule") return `schedule ${stringField(trigger, "cron") ?? "…"}`;
  if (type === "DELAYED_COMPLETION") return `after ${stringField(trigger, "after") ?? "…"}`;
  return type ?? "trigger";
}

function modifierBadges(source: Source, site: StepSite): Badge[] {
  return MODIFIERS.flatMap((kind) => {
    const pair = pairOf(site.map, kind);
    const range = pair && pairRange(source, pair);
    return range ? [{ kind, label: modifierLabel(kind, pair.value), range }] : [];
  });
}

function triggerBadges(source: Source): Badge[] {
  const root = source.doc.contents;
  const triggers = isMap(root) ? root.get("triggers", true) : undefined;
  if (!isSeq(triggers)) return [];
  return triggers.items.flatMap((item) =>
    isMap(item) && item.range
      ? [
          {
            kind: "trigger" as const,
            label: triggerLabel(item),
            range: sourceRange(source, item.range[0], item.range[1]),
          },
        ]
      : [],
  );
}

function groupOf(list: ListSite): string | undefined {
  if (!list.owner) return undefined;
  return list.branch === undefined ? list.owner.id : `${list.owner.id}/${list.branch}`;
}

function listRange(source: Source, list: ListSite): SourceRange {
  const start = list.seq.range?.[0] ?? list.key.start;
  return sourceRange(source, start, Math.max(start, contentEnd(list.seq)));
}

function groups(source: Source, tree: StepTree): CanvasGroup[] {
  const out: CanvasGroup[] = [];
  for (const site of tree.steps) {
    if (site.children.length === 0) continue;
    const parent = groupOf(site.list);
    const branchLists = site.children.filter((list) => list.branch !== undefined);
    const stepsList = site.children.find((list) => list.branch === undefined);
    if (stepsList) {
      out.push({
        id: site.id,
        kind: "foreach",
        owner: site.id,
        parent,
        children: stepsList.items.map((s) => s.id),
        branches: [],
        range: listRange(source, stepsList),
      });
    }
    if (branchLists.length === 0) continue;
    const branches = pairOf(site.map, "branches")?.value as Node | null | undefined;
    const start = branches?.range?.[0] ?? site.start;
    const end = Math.max(start, contentEnd(branches));
    out.push({
      id: site.id,
      kind: "parallel",
      owner: site.id,
      parent,
      children: [],
      branches: branchLists.map((list) => `${site.id}/${list.branch}`),
      range: sourceRange(source, start, end),
    });
    for (const list of branchLists) {
      out.push({
        id: `${site.id}/${list.branch}`,
        kind: "branch",
        owner: site.id,
        branch: list.branch,
        parent: site.id,
        children: list.items.map((s) => s.id),
        branches: [],
        range: listRange(source, list),
      });
    }
  }
  return out;
}

function structureEdges(tree: StepTree): CanvasEdge[] {
  const edges: CanvasEdge[] = [];
  const edge = (kind: EdgeKind, from: string, to: string): void => {
    edges.push({ id: `${kind}:${from}->${to}`, kind, from, to });
  };
  for (const list of tree.lists) {
    list.items.forEach((site, i) => {
      const next = list.items[i + 1];
      if (next) edge("sequence", site.id, next.id);
    });
    const first = list.items[0];
    const last = list.items[list.items.length - 1];
    if (list.owner && first && last) {
      edge("enter", list.owner.id, first.id);
      edge("exit", last.id, list.owner.id);
    }
  }
  return edges;
}

/** The innermost node whose range holds `offset`. */
export function innermostAt(nodes: readonly CanvasNode[], offset: number): CanvasNode | undefined {
  let best: CanvasNode | undefined;
  for (const node of nodes) {
    const { start, end } = node.range;
    if (start <= offset && offset <= end && (!best || end - start < best.range.end - best.range.start)) best = node;
  }
  return best;
}

/** `byName`: the node of the first step of each name. */
function issues(source: Source, nodes: readonly CanvasNode[], byName: ReadonlyMap<string, string>): CanvasIssue[] {
  const result = validated(source.text, source);
  if (result.ok) return [];
  const lineStarts = source.lines.lineStarts;
  return result.errors.map((issue) => {
    const offset = (lineStarts[issue.line - 1] ?? 0) + issue.column - 1;
    const node = innermostAt(nodes, offset);
    const first = isDuplicateStepIssue(issue) && node?.name !== undefined ? byName.get(node.name) : undefined;
    return { ...issue, node: node?.id, other: first };
  });
}

/**
 * The canvas's picture of a workflow text, which stays the source of truth. Text that does not
 * parse or validate still yields every step the parser could read, with the problems in `issues`:
 * this never throws. Given the text already read (readSource), it reads it from that, not again.
 */
export function graph(text: string | Source): CanvasGraph {
  const source = typeof text === "string" ? readSource(text) : text;
  const tree = collectSteps(source);
  const triggers = triggerBadges(source);
  const nodes: CanvasNode[] = tree.steps.map((site) => ({
    id: site.id,
    name: site.name,
    type: site.type,
    list: site.list.ref,
    index: site.index,
    group: groupOf(site.list),
    range: sourceRange(source, site.start, site.end),
    block: sourceRange(source, site.blockStart, site.blockEnd),
    badges: [...modifierBadges(source, site), ...(site === tree.root?.items[0] ? triggers : [])],
  }));

  const byName = new Map(
    tree.steps.flatMap((site) => (site.name === undefined ? [] : [[site.name, site.id] as const])).reverse(),
  );
  const references = findReferences(source, tree).map((ref) => ({
    name: ref.name,
    target: byName.get(ref.name),
    holder: ref.holder?.id,
    field: formatPath(ref.path),
    range: sourceRange(source, ref.start, ref.end),
  }));
  const data = new Map<string, CanvasEdge>();
  for (const ref of references) {
    if (ref.target === undefined || ref.holder === undefined || ref.target === ref.holder) continue;
    const id = `data:${ref.target}->${ref.holder}`;
    data.set(id, { id, kind: "data", from: ref.target, to: ref.holder });
  }

  return {
    nodes,
    edges: [...structureEdges(tree), ...data.values()],
    groups: groups(source, tree),
    references,
    agents: agentNames(source),
    issues: issues(source, nodes, byName),
  };
}
