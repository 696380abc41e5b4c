import { isMap, isScalar, isSeq, type Node } from "yaml";
import type { PathSegment } from "../workflow/locate";
import { STEP_REFERENCE as REFERENCE, templateSpans } from "../workflow/step-references";
import type { Source } from "./source";
import { pairOf, type StepSite, type StepTree } from "./steps";

/** Step keys whose strings are never evaluated, so they hold no references. */
const LITERAL_KEYS = new Set(["name", "type", "description", "code"]);

export interface FoundReference {
  name: string;
  start: number;
  end: number;
  holder: StepSite | undefined;
  path: PathSegment[];
}

/** How an expression names a step. */
export function stepRef(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `steps.${name}` : `steps.\`${name}\``;
}

/**
 * Every `steps.<name>` in the text where it is evaluated: inside the templates of string values,
 * and anywhere in a `condition` (a bare expression). Read from the source span of each string,
 * so the positions are exact whatever its quoting.
 */
export function findReferences(source: Source, tree: StepTree): FoundReference[] {
  const found: FoundReference[] = [];
  const scanScalar = (node: Node, path: PathSegment[], holder: StepSite | undefined, whole: boolean): void => {
    if (!isScalar(node) || typeof node.value !== "string" || !node.range) return;
    const [from, to] = node.range;
    const raw = source.text.slice(from, to);
    const spans: [number, number][] = whole ? [[0, raw.length]] : templateSpans(raw);
    for (const [a, b] of spans) {
      for (const match of raw.slice(a, b).matchAll(REFERENCE)) {
        const start = from + a + match.index;
        found.push({ name: match[1] ?? match[2] ?? "", start, end: start + match[0].length, holder, path });
      }
    }
  };
  const scan = (node: unknown, path: PathSegment[], holder: StepSite | undefined): void => {
    if (isMap(node)) {
      for (const pair of node.items)
        if (isScalar(pair.key)) scan(pair.value, [...path, String(pair.key.value)], holder);
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => scan(item, [...path, i], holder));
    } else if (isScalar(node)) scanScalar(node, path, holder, false);
  };

  const root = source.doc.contents;
  const agents = isMap(root) ? pairOf(root, "agents") : undefined;
  if (agents) scan(agents.value, ["agents"], undefined);
  for (const site of tree.steps) {
    const nested = new Set<string>(site.children.map((list) => (list.branch === undefined ? "steps" : "branches")));
    for (const pair of site.map.items) {
      if (!isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      if (LITERAL_KEYS.has(key) || nested.has(key)) continue;
      const path = [...site.path, key];
      if (key === "condition" && isScalar(pair.value)) scanScalar(pair.value, path, site, true);
      else scan(pair.value, path, site);
    }
  }
  return found.sort((a, b) => a.start - b.start);
}
