import { stringify } from "yaml";
import { runOperation, type Plan } from "./edits";
import { blockLines, seqIndent } from "./layout";
import { namesFor, newNameProblem } from "./op-steps";
import type { Source } from "./source";
import type { ListSite, StepSite, StepTree } from "./steps";
import { lineStart, shiftLines } from "./text";
import type { EditResult } from "./types";

export interface WrapOp {
  /** Steps next to each other in one list, in any order. */
  ids: readonly string[];
  /** A unique `step_<n>` when left out. */
  name?: string;
}

export interface UnwrapOp {
  id: string;
}

/** A name or key as YAML writes it: plain unless it would read as something else (`true`, `null`). */
function yamlText(value: string): string {
  return stringify(value).trim();
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : text + "\n";
}

/** A replacement that reaches the end of a text without a final newline keeps it that way. */
function fitEnd(source: Source, to: number, insert: string): string {
  return to === source.text.length && !source.text.endsWith("\n") ? insert.replace(/\n$/, "") : insert;
}

function selection(tree: StepTree, ids: readonly string[]): { list: ListSite; sites: StepSite[] } | string {
  const sites: StepSite[] = [];
  for (const id of new Set(ids)) {
    const site = tree.byId.get(id);
    if (!site) return `no step \`${id}\``;
    sites.push(site);
  }
  sites.sort((a, b) => a.index - b.index);
  const [first] = sites;
  if (!first) return "select the steps to wrap";
  const list = first.list;
  if (sites.some((site) => site.list !== list)) return "the steps to wrap must be in the same list";
  if (sites.some((site, i) => site.index !== first.index + i)) return "the steps to wrap must be next to each other";
  return { list, sites };
}

function containerName(tree: StepTree, name: string | undefined): string | { error: string } {
  const problem = name === undefined ? undefined : newNameProblem(tree, name);
  return problem === undefined ? namesFor(tree, name)() : { error: problem };
}

function wrapPlan(source: Source, tree: StepTree, op: WrapOp, kind: "foreach" | "parallel"): Plan | string {
  const selected = selection(tree, op.ids);
  if (typeof selected === "string") return selected;
  const { list, sites } = selected;
  const first = sites[0] as StepSite;
  const last = sites[sites.length - 1] as StepSite;
  if (kind === "parallel" && sites.some((site) => site.name === undefined))
    return "each step to run in parallel needs a name: it names its branch";
  const name = containerName(tree, op.name);
  if (typeof name !== "string") return name.error;
  const { text } = source;
  const nameText = yamlText(name);

  if (list.seq.flow) {
    const inner =
      kind === "foreach"
        ? `items: [], steps: [ ${text.slice(first.start, last.end)} ]`
        : `branches: { ${sites.map((site) => `${yamlText(site.name ?? "")}: [ ${text.slice(site.start, site.end)} ]`).join(", ")} }`;
    return {
      edits: [{ from: first.start, to: last.end, insert: `{ name: ${nameText}, type: ${kind}, ${inner} }` }],
      id: name,
    };
  }

  const col = list.dashCol;
  const pad = (n: number): string => " ".repeat(n);
  const head = `${pad(col)}- name: ${nameText}\n${pad(col + 2)}type: ${kind}\n`;
  let body: string;
  if (kind === "foreach") {
    const steps = withNewline(text.slice(first.blockStart, last.blockEnd));
    body = `${pad(col + 2)}items: []\n${pad(col + 2)}steps:\n${shiftLines(steps, 2 + seqIndent(source, tree))}`;
  } else {
    // Each step becomes a branch named after it; what lies between two steps (blank lines, loose comments) stays
    // between their branches.
    const branches = sites.map((site, i) => {
      const gap = i === 0 ? "" : shiftLines(text.slice((sites[i - 1] as StepSite).blockEnd, site.blockStart), 4);
      const lines = withNewline(text.slice(site.blockStart, site.blockEnd));
      return `${gap}${pad(col + 4)}${yamlText(site.name ?? "")}:\n${shiftLines(lines, 4 + seqIndent(source, tree))}`;
    });
    body = `${pad(col + 2)}branches:\n${branches.join("")}`;
  }
  return {
    edits: [{ from: first.blockStart, to: last.blockEnd, insert: fitEnd(source, last.blockEnd, head + body) }],
    id: name,
  };
}

/** Puts adjacent steps inside a new foreach (with `items: []` to fill in), keeping their text and comments. */
export function wrapInForeach(text: string, op: WrapOp): EditResult {
  return runOperation(text, (source, tree) => wrapPlan(source, tree, op, "foreach"));
}

/** Puts adjacent steps inside a new parallel step, each step its own branch named after it. */
export function wrapInParallel(text: string, op: WrapOp): EditResult {
  return runOperation(text, (source, tree) => wrapPlan(source, tree, op, "parallel"));
}

/**
 * Replaces a foreach or parallel step with its steps (a parallel's branches one after the
 * other). The container's own fields go; the comment lines above it stay, above its first step.
 */
export function unwrap(text: string, op: UnwrapOp): EditResult {
  return runOperation(text, (source, tree) => {
    const site = tree.byId.get(op.id);
    if (!site) return `no step \`${op.id}\``;
    const lists = site.children.filter((list) => list.items.length > 0);
    if (lists.length === 0) return `\`${op.id}\` holds no steps to unwrap`;
    const removed = site.name === undefined ? [] : [site.name];
    const { text } = source;
    if (site.list.seq.flow) {
      const items = lists.flatMap((list) => list.items.map((s) => text.slice(s.start, s.end)));
      return { edits: [{ from: site.start, to: site.end, insert: items.join(", ") }], removed };
    }
    const col = site.list.dashCol;
    const parts = lists.map((list) => {
      if (list.seq.flow)
        return list.items.map((s) => blockLines({ kind: "flow", text: text.slice(s.start, s.end) }, col)).join("");
      const steps = text.slice(
        (list.items[0] as StepSite).blockStart,
        (list.items[list.items.length - 1] as StepSite).blockEnd,
      );
      return shiftLines(withNewline(steps), col - list.dashCol);
    });
    const leading = text.slice(site.blockStart, lineStart(text, site.start));
    return {
      edits: [
        { from: site.blockStart, to: site.blockEnd, insert: fitEnd(source, site.blockEnd, leading + parts.join("")) },
      ],
      removed,
    };
  });
}
