import { readFileSync, readdirSync } from "node:fs";
import { parse, parseDocument, stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { STEP_TYPES, formatIssues, isUnknownStepIssue } from "../workflow";
import { validateWorkflowText } from "../workflow/validate";
import { applyEdits } from "./edits";
import {
  applyOperation,
  graph,
  MODIFIERS,
  type CanvasGraph,
  type CanvasNode,
  type CanvasOperation,
  type CollectionValue,
  type EditSuccess,
  type StepList,
} from "./index";
import { commentLines, counts, lineDiff, lineOf } from "./testing/diff";
import { pick, seeded, type Random } from "../testing/random";
import { generateWorkflow } from "./testing/generate";

const read = (url: URL): string => readFileSync(url, "utf8");
const examples = new URL("../../../examples/", import.meta.url);
const corpus: { label: string; text: string }[] = [
  ...readdirSync(examples)
    .filter((file) => file.endsWith(".yaml"))
    .map((file) => ({ label: `examples/${file}`, text: read(new URL(file, examples)) })),
  {
    label: "workflow/fixtures/example.yaml",
    text: read(new URL("../workflow/fixtures/example.yaml", import.meta.url)),
  },
  ...Array.from({ length: 40 }, (_, i) => ({ label: `generated #${i + 1}`, text: generateWorkflow(i + 1) })),
];

const sameList = (a: StepList, b: StepList): boolean => a.parent === b.parent && a.branch === b.branch;

function listsOf(g: CanvasGraph): StepList[] {
  return [
    {},
    ...g.groups.flatMap((group): StepList[] => {
      if (group.kind === "foreach") return [{ parent: group.owner }];
      return group.kind === "branch" ? [{ parent: group.owner, branch: group.branch as string }] : [];
    }),
  ];
}

function members(g: CanvasGraph, list: StepList): CanvasNode[] {
  return g.nodes.filter((node) => sameList(node.list, list)).sort((a, b) => a.index - b.index);
}

type Span = [number, number];

/** The list's text (offsets) and whether it is written in flow style. */
function listSpan(text: string, g: CanvasGraph, list: StepList): { span: Span; flow: boolean } {
  const group =
    list.parent === undefined
      ? undefined
      : g.groups.find((gr) => gr.id === (list.branch === undefined ? list.parent : `${list.parent}/${list.branch}`));
  const range = group
    ? [group.range.start, group.range.end]
    : (parseDocument(text).get("steps", true) as { range: number[] }).range;
  const [start = 0, end = 0] = range;
  return { span: [start, end], flow: text[start] === "[" };
}

function descendants(g: CanvasGraph, id: string): Set<string> {
  const out = new Set([id]);
  for (let grew = true; grew;) {
    grew = false;
    for (const node of g.nodes) {
      const owner = g.groups.find((group) => group.id === node.group && group.kind !== "parallel")?.owner;
      if (owner !== undefined && out.has(owner) && !out.has(node.id)) {
        out.add(node.id);
        grew = true;
      }
    }
  }
  return out;
}

/** A step as written (no schema defaults filled in), found by name at any depth. */
function rawStep(text: string, name: string): Record<string, unknown> | undefined {
  const find = (list: unknown): Record<string, unknown> | undefined => {
    if (!Array.isArray(list)) return undefined;
    for (const step of list as Record<string, unknown>[]) {
      if (step.name === name) return step;
      const inner = [step.steps, ...Object.values((step.branches ?? {}) as object)]
        .map(find)
        .find((found) => found !== undefined);
      if (inner) return inner;
    }
    return undefined;
  };
  return find((parseDocument(text).toJS() as { steps?: unknown } | null)?.steps);
}

const OPTIONAL_KEYS = [
  "description",
  "condition",
  "retry",
  "timeout",
  "manual_approval",
  "input",
  "concurrency",
  "system",
  "temperature",
  "inputs",
  "max_tokens",
];

function randomOperation(
  random: Random,
  g: CanvasGraph,
  text: string,
  kind: CanvasOperation["kind"],
  serial: number,
): CanvasOperation | undefined {
  const node = pick(random, g.nodes);
  const list = pick(random, listsOf(g));
  const size = members(g, list).length;
  switch (kind) {
    case "addStep": {
      const types = STEP_TYPES.filter((type) => type !== "agent" || g.agents.length > 0);
      return { kind, type: pick(random, types), list, index: Math.floor(random() * (size + 1)) };
    }
    case "deleteStep":
      return { kind, id: node.id };
    case "renameStep":
      return { kind, id: node.id, name: random() < 0.7 ? `renamed_${serial}` : `re-named-${serial}` };
    case "moveStep": {
      const room = sameList(node.list, list) ? size - 1 : size;
      return { kind, id: node.id, to: list, index: Math.floor(random() * (room + 1)) };
    }
    case "wrapInForeach":
    case "wrapInParallel": {
      const items = members(g, list);
      const start = Math.floor(random() * items.length);
      const count = 1 + Math.floor(random() * 3);
      return { kind, ids: items.slice(start, start + count).map((n) => n.id) };
    }
    case "unwrap": {
      const containers = g.groups.filter((group) => group.kind !== "branch").map((group) => group.owner);
      return containers.length === 0 ? undefined : { kind, id: pick(random, containers) };
    }
    case "setField": {
      const choices: [string, string | number][] = [
        [
          "description",
          pick(random, ["12", "true", "a: b", "plain words", "two\nlines\n", "{{ not a template here }}"]),
        ],
        ["timeout", pick(random, [1, 45, 2.5])],
      ];
      if (node.type === "llm") choices.push(["model", "gpt-5-mini"], ["prompt", "Again: {{ vars.who }}"]);
      if (node.type === "wait") choices.push(["seconds", 7]);
      const [key, value] = pick(random, choices);
      return { kind, id: node.id, key, value };
    }
    case "setCollection": {
      const values: CollectionValue[] = [
        ["a", "{{ item }}", 12, "12", true],
        { a: 1, nested: ["x", { b: "two\nlines" }] },
        [],
        {},
      ];
      const choices: [string, CollectionValue][] = [["input", pick(random, values)]];
      if (node.type === "foreach") choices.push(["items", pick(random, values.filter(Array.isArray))]);
      if (node.type === "transform") choices.push(["output", pick(random, values)]);
      const [key, value] = pick(random, choices);
      return { kind, id: node.id, key, value };
    }
    case "removeField": {
      const step = node.name === undefined ? undefined : rawStep(text, node.name);
      const keys = Object.keys(step ?? {}).filter((key) => OPTIONAL_KEYS.includes(key));
      return keys.length === 0 ? undefined : { kind, id: node.id, key: pick(random, keys) };
    }
    case "toggleModifier":
      return { kind, id: node.id, modifier: pick(random, MODIFIERS) };
    case "setLanguage": {
      // A script someone wrote stays, and is no `cli` step's argv: a script language.
      const code = g.nodes.filter((n) => n.type === "code");
      if (code.length === 0) return undefined;
      return { kind, id: pick(random, code).id, language: pick(random, ["python", "javascript", "bash", "lua"]) };
    }
  }
}

/** The spans of the old text (offsets) an operation may rewrite, or insert into. */
function allowedSpans(text: string, g: CanvasGraph, op: CanvasOperation): Span[] {
  const nodeOf = (id: string): CanvasNode => g.nodes.find((n) => n.id === id) as CanvasNode;
  const own = (id: string, part: "block" | "range" = "block"): Span => {
    const node = nodeOf(id);
    const list = listSpan(text, g, node.list);
    return list.flow ? list.span : [node[part].start, node[part].end];
  };
  const destination = (list: StepList): Span => {
    const span = listSpan(text, g, list);
    if (span.flow) return span.span;
    const items = members(g, list);
    return [items[0]?.block.start ?? span.span[0], items[items.length - 1]?.block.end ?? span.span[1]];
  };
  switch (op.kind) {
    case "addStep":
      return [destination(op.list ?? {})];
    case "moveStep":
      return [own(op.id), destination(op.to)];
    case "renameStep":
      return [
        own(op.id, "range"),
        ...g.references.filter((ref) => ref.name === op.id).map((ref): Span => [ref.range.start, ref.range.end]),
      ];
    case "wrapInForeach":
    case "wrapInParallel": {
      const spans = op.ids.map((id) => own(id));
      return [[Math.min(...spans.map((s) => s[0])), Math.max(...spans.map((s) => s[1]))]];
    }
    default:
      return [own(op.id)];
  }
}

/** Widens spans to whole lines and over the blank lines next to them, which separate steps and go or come with them. */
function withBlanks(text: string, spans: Span[]): Span[] {
  return spans.map(([from, to]) => {
    let a = text.lastIndexOf("\n", from - 1) + 1;
    while (a > 0) {
      const prev = text.lastIndexOf("\n", a - 2) + 1;
      if (text.slice(prev, a).trim() !== "") break;
      a = prev;
    }
    const lineEnd = (at: number): number => (text.indexOf("\n", at) < 0 ? text.length : text.indexOf("\n", at) + 1);
    let b = to > 0 && text[to - 1] !== "\n" ? lineEnd(to) : to;
    while (b < text.length && text.slice(b, lineEnd(b)).trim() === "") b = lineEnd(b);
    // At the end of a text without a final newline, the newline before goes instead of the missing one.
    return [b === text.length && a > 0 && !text.endsWith("\n") ? a - 1 : a, b];
  });
}

const within = (spans: Span[], from: number, to: number): boolean => spans.some(([a, b]) => from >= a && to <= b);

/**
 * Lines removed (or added) on balance: a line the diff shows leaving and coming back elsewhere, like a step moved past,
 * has not changed.
 */
function onBalance(lines: string[], removed: number[], otherLines: string[], added: number[]): number[] {
  const credit = counts(added.map((i) => otherLines[i] as string));
  return removed.filter((i) => {
    const line = lines[i] as string;
    const left = credit.get(line) ?? 0;
    if (left > 0) credit.set(line, left - 1);
    return left === 0;
  });
}

function checkText(before: string, g: CanvasGraph, op: CanvasOperation, result: EditSuccess): void {
  expect(applyEdits(before, result.edits).text).toBe(result.text);
  const allowed = withBlanks(before, allowedSpans(before, g, op));
  // Every edit stays inside what the operation concerns.
  expect(result.edits.filter((edit) => !within(allowed, edit.from, edit.to))).toEqual([]);

  // So does a line diff, an independent look at the two texts. A diff may slide a change along
  // repeated lines (blank lines, a comment the moved step shares with its new neighbour), so a
  // line counts as in the region when a line just like it is.
  const oldLines = before.split("\n");
  const newLines = result.text.split("\n");
  const toLines = (text: string, spans: Span[]): Span[] =>
    spans.map(([a, b]): Span => [lineOf(text, a), lineOf(text, Math.max(a, b - 1))]);
  const allowedLines = toLines(before, allowed);
  const changedLines = toLines(
    result.text,
    withBlanks(
      result.text,
      result.changed.map((range): Span => [range.from, range.to]),
    ),
  );
  const outside = (lines: string[], spans: Span[]) => {
    const inRegion = new Set(lines.filter((_, i) => spans.some(([a, b]) => i >= a && i <= b)));
    return (i: number): boolean =>
      lines[i]?.trim() !== "" && !spans.some(([a, b]) => i >= a && i <= b) && !inRegion.has(lines[i] as string);
  };
  const { removed, added } = lineDiff(before, result.text);
  expect(
    onBalance(oldLines, removed, newLines, added)
      .filter(outside(oldLines, allowedLines))
      .map((i) => oldLines[i]),
  ).toEqual([]);
  expect(
    onBalance(newLines, added, oldLines, removed)
      .filter(outside(newLines, changedLines))
      .map((i) => newLines[i]),
  ).toEqual([]);

  // Every comment line outside what the operation took apart is still there as written.
  const kept = counts(
    commentLines(oldLines.filter((_, i) => !allowedLines.some(([a, b]) => i >= a && i <= b)).join("\n")),
  );
  const now = counts(commentLines(result.text));
  for (const [line, count] of kept) expect(now.get(line) ?? 0, line).toBeGreaterThanOrEqual(count);
  if (op.kind === "moveStep" || op.kind === "wrapInForeach" || op.kind === "wrapInParallel") {
    const ids = op.kind === "moveStep" ? [op.id] : op.ids;
    const carried = ids.flatMap((id) => {
      const node = g.nodes.find((n) => n.id === id) as CanvasNode;
      return commentLines(before.slice(node.block.start, node.block.end)).map((line) => line.trim());
    });
    const trimmed = counts(commentLines(result.text).map((line) => line.trim()));
    for (const [line, count] of counts(carried)) expect(trimmed.get(line) ?? 0, line).toBeGreaterThanOrEqual(count);
  }
}

function checkGraph(before: string, g: CanvasGraph, op: CanvasOperation, result: EditSuccess): void {
  const after = graph(result.text);
  if (op.kind === "deleteStep" || op.kind === "unwrap") {
    // What still reads a deleted (or unwrapped) step is a problem at its own line, each one a warning of the operation.
    expect(after.issues.filter((issue) => !isUnknownStepIssue(issue))).toEqual([]);
    expect(after.issues.map((issue) => issue.line).sort((a, b) => a - b)).toEqual(
      result.warnings.map((w) => w.range.startLine).sort((a, b) => a - b),
    );
  } else expect(after.issues).toEqual([]);
  const ids = (x: CanvasGraph): string[] => x.nodes.map((n) => n.id).sort();
  const node = (x: CanvasGraph, id: string | undefined): CanvasNode | undefined => x.nodes.find((n) => n.id === id);
  switch (op.kind) {
    case "addStep": {
      const added = node(after, result.id);
      expect(added?.type).toBe(op.type);
      expect(added?.list).toEqual(op.list);
      expect(added?.index).toBe(op.index);
      expect(after.nodes.length).toBe(g.nodes.length + (op.type === "foreach" || op.type === "parallel" ? 2 : 1));
      break;
    }
    case "deleteStep": {
      const gone = descendants(g, op.id);
      expect(ids(after)).toEqual(ids(g).filter((id) => !gone.has(id)));
      const names = [...gone].map((id) => node(g, id)?.name);
      const dangling = g.references.filter(
        (ref) => names.includes(ref.name) && (ref.holder === undefined || !gone.has(ref.holder)),
      );
      expect(result.warnings.length).toBe(dangling.length);
      break;
    }
    case "renameStep": {
      const count = g.references.filter((ref) => ref.name === op.id).length;
      expect(after.references.filter((ref) => ref.name === op.id)).toEqual([]);
      expect(after.references.filter((ref) => ref.name === op.name).length).toBe(count);
      expect(ids(after)).toEqual(
        ids(g)
          .map((id) => (id === op.id ? op.name : id))
          .sort(),
      );
      expect(node(after, op.name)?.index).toBe(node(g, op.id)?.index);
      break;
    }
    case "moveStep":
      expect(ids(after)).toEqual(ids(g));
      expect(node(after, op.id)?.list).toEqual(op.to);
      expect(node(after, op.id)?.index).toBe(op.index);
      break;
    case "wrapInForeach":
    case "wrapInParallel": {
      const container = result.id as string;
      expect(ids(after)).toEqual([...ids(g), container].sort());
      expect(node(after, container)?.type).toBe(op.kind === "wrapInForeach" ? "foreach" : "parallel");
      for (const id of op.ids)
        expect(node(after, id)?.group).toBe(
          op.kind === "wrapInForeach" ? container : `${container}/${node(g, id)?.name}`,
        );
      break;
    }
    case "unwrap": {
      const container = node(g, op.id) as CanvasNode;
      const children = g.nodes.filter((n) => n.group !== undefined && n.group.split("/")[0] === op.id);
      expect(ids(after)).toEqual(ids(g).filter((id) => id !== op.id));
      const order = members(after, container.list).map((n) => n.id);
      expect(order.slice(container.index, container.index + children.length)).toEqual(children.map((n) => n.id));
      break;
    }
    case "setField":
    case "setCollection": {
      expect(ids(after)).toEqual(ids(g));
      expect(rawStep(result.text, node(g, op.id)?.name as string)?.[op.key as string]).toEqual(op.value);
      break;
    }
    case "setLanguage": {
      expect(ids(after)).toEqual(ids(g));
      expect(rawStep(result.text, node(g, op.id)?.name as string)?.language).toBe(op.language);
      break;
    }
    case "removeField": {
      expect(Object.keys(rawStep(result.text, node(g, op.id)?.name as string) ?? {})).not.toContain(op.key);
      break;
    }
    case "toggleModifier": {
      const had = node(g, op.id)?.badges.some((b) => b.kind === op.modifier);
      expect(node(after, op.id)?.badges.some((b) => b.kind === op.modifier)).toBe(!had);
      break;
    }
  }
}

/** Refusals an operation chosen at random may meet on a valid file; anything else is a bug. */
const EXPECTED_REFUSALS = [/is the only step of/, /is the workflow's only step/, /cannot move into itself/];

const KINDS: CanvasOperation["kind"][] = [
  "addStep",
  "deleteStep",
  "renameStep",
  "moveStep",
  "wrapInForeach",
  "wrapInParallel",
  "unwrap",
  "setField",
  "setCollection",
  "removeField",
  "toggleModifier",
  "setLanguage",
];

describe("canvas operations on every example and generated workflow", () => {
  it("the corpus validates to begin with", () => {
    for (const { label, text } of corpus) {
      const result = validateWorkflowText(text);
      expect(result.ok ? "" : `${label}\n${formatIssues(result.errors)}`).toBe("");
    }
  });

  const applied = new Map<string, number>();
  for (const { label, text } of corpus) {
    it(`applies every operation at several positions: ${label}`, () => {
      const random = seeded(label.length * 7919 + text.length);
      const g = graph(text);
      let serial = 0;
      for (const kind of KINDS) {
        for (let attempt = 0; attempt < 3; attempt++) {
          const op = randomOperation(random, g, text, kind, ++serial);
          if (!op) continue;
          const result = applyOperation(text, op);
          const context = `${label}: ${JSON.stringify(op)}`;
          if (!result.ok) {
            expect(
              EXPECTED_REFUSALS.some((pattern) => pattern.test(result.error)),
              `${context} refused: ${result.error}`,
            ).toBe(true);
            continue;
          }
          try {
            checkText(text, g, op, result);
            checkGraph(text, g, op, result);
          } catch (err) {
            const actual = (err as { actual?: unknown }).actual;
            throw new Error(`${context}\n--- result\n${result.text}\n${String(err)}\n${JSON.stringify(actual)}`);
          }
          applied.set(kind, (applied.get(kind) ?? 0) + 1);
        }
      }
    });
  }

  it("succeeded often enough for every operation to count", () => {
    for (const kind of KINDS) expect(applied.get(kind) ?? 0, kind).toBeGreaterThanOrEqual(30);
  });
});

describe("graph", () => {
  const shape = (g: CanvasGraph): unknown => ({
    nodes: g.nodes.map((n) => [n.id, n.name, n.type, n.list, n.index, n.group, n.badges.map((b) => b.kind)]),
    edges: g.edges.map((e) => e.id),
    groups: g.groups.map((gr) => [gr.id, gr.kind, gr.children, gr.branches]),
  });

  it("is the same for a document printed back by yaml, with or without its comments", () => {
    for (const { text } of corpus) {
      const g = graph(text);
      expect(shape(graph(String(parseDocument(text))))).toEqual(shape(g));
      expect(shape(graph(stringify(parse(text))))).toEqual(shape(g));
    }
  });

  for (const { label, text } of corpus) {
    it(`never throws on broken text, and reports what is wrong: ${label}`, () => {
      const random = seeded(text.length);
      for (let i = 0; i < 8; i++) {
        const cut = Math.floor(random() * text.length);
        const broken =
          random() < 0.5
            ? text.slice(0, cut)
            : text.slice(0, cut) + pick(random, ["\t", ": [", "{", "-", "\n  x"]) + text.slice(cut + 3);
        const g = graph(broken);
        if (!validateWorkflowText(broken).ok) expect(g.issues.length).toBeGreaterThan(0);
        const chosen = g.nodes.length > 0 ? randomOperation(random, g, broken, pick(random, KINDS), i) : undefined;
        if (chosen) expect(() => applyOperation(broken, chosen)).not.toThrow();
      }
    });
  }
});
