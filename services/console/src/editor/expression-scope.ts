import { isMap, isScalar, isSeq, visit, type Document } from "yaml";
import { graph, nodeAt, readSource, type CanvasGraph, type CanvasNode, type Source } from "@wf/shared/canvas";
import { readableSteps } from "../canvas/steps-before";
import { sharedTextAt, type SharedText } from "./shared-text";

/** A name an expression can read, with what completion shows beside it. */
export interface ScopeName {
  name: string;
  detail?: string;
  info?: string;
}

/** A foreach holding an expression's step. */
export interface ScopeForeach {
  name: string;
  /** Of the steps the expression can read, those run in the same item of this foreach (and no inner one). */
  steps: string[];
}

/** Of what an expression can read, what its step's place among the steps gives it. */
export interface StepScope {
  /** The steps that run before the expression's step, outermost first: `steps.<name>`. */
  steps: ScopeName[];
  /** Inside a foreach's steps: `item` is its current item. */
  inForeach: boolean;
  /**
   * The foreach steps holding the expression's step, outermost first: `item` is the last one's current item, unless
   * `deeper`. Empty outside a foreach, or when one of them has no name.
   */
  foreach: ScopeForeach[];
  /**
   * Of places joined by commonScope, whether some are in a foreach that not all are in, inside those of `foreach`:
   * `item` is then another item at each, while the steps of `foreach`'s items are the same runs.
   */
  deeper: boolean;
}

/** Of what an expression can read, what its step's place gives it: StepScope, and the approval gating the step. */
export interface PlaceScope extends StepScope {
  /** The groups of the `manual_approval` gating the expression's step (`approval.<group>`); null without one. */
  approvalGroups: string[] | null;
}

/** What an expression written at one place of a workflow can read (docs/workflow-format.md#expressions). */
export interface ExpressionScope extends PlaceScope {
  variables: ScopeName[];
  /**
   * Outside every step, the steps rendering the text (an agent's, by each step using it), of whose places the scope is
   * what all of them read (commonScope); null in a step.
   */
  shared: SharedText | null;
}

/**
 * What every one of some steps' places can read (`scopes`, the first one's order kept): the steps each reads; the
 * foreach steps holding them all, each with the steps of its item they all read (at each place, the same item's run of
 * them), `item` being the last one's only when none of the places is in a foreach inside it; and `approval` when every
 * one is gated, with the groups all the gates have. Nothing when there are none.
 */
export function commonScope(scopes: readonly PlaceScope[]): PlaceScope {
  const [first, ...rest] = scopes;
  if (first === undefined) return { steps: [], inForeach: false, foreach: [], deeper: false, approvalGroups: null };
  const differ = first.foreach.findIndex((loop, i) => rest.some((scope) => scope.foreach[i]?.name !== loop.name));
  const loops = differ === -1 ? first.foreach : first.foreach.slice(0, differ);
  const everywhere = (name: string) => rest.every((scope) => scope.steps.some((step) => step.name === name));
  return {
    steps: first.steps.filter((step) => everywhere(step.name)),
    inForeach: scopes.every((scope) => scope.inForeach),
    foreach: loops.map((loop) => ({ name: loop.name, steps: loop.steps.filter(everywhere) })),
    deeper: scopes.some((scope) => scope.deeper || scope.foreach.length > loops.length),
    approvalGroups: scopes.every((scope) => scope.approvalGroups !== null)
      ? first.approvalGroups!.filter((name) => rest.every((scope) => scope.approvalGroups!.includes(name)))
      : null,
  };
}

const text = (value: unknown): string | undefined => (isScalar(value) ? String(value.value) : undefined);

function variablesOf(doc: Document): ScopeName[] {
  const variables = doc.get("variables");
  if (!isMap(variables)) return [];
  return variables.items.flatMap((pair): ScopeName[] => {
    const name = text(pair.key);
    if (name === undefined) return [];
    const def = pair.value;
    if (!isMap(def)) return [{ name }];
    const type = text(def.get("type", true));
    const required = text(def.get("required", true)) === "true";
    const description = text(def.get("description", true));
    return [
      {
        name,
        ...(type === undefined ? {} : { detail: required ? `${type}, required` : type }),
        ...(description === undefined ? {} : { info: description }),
      },
    ];
  });
}

/** The group names of the `manual_approval` whose key starts at `offset`. */
function approvalGroupsAt(doc: Document, offset: number): string[] {
  let groups: string[] = [];
  visit(doc, {
    Pair(_, pair) {
      if (!isScalar(pair.key) || pair.key.value !== "manual_approval" || pair.key.range?.[0] !== offset) return;
      const list = isMap(pair.value) ? pair.value.get("groups") : undefined;
      if (isSeq(list))
        groups = list.items.flatMap((group) => {
          const name = isMap(group) ? text(group.get("name", true)) : undefined;
          return name === undefined ? [] : [name];
        });
      return visit.BREAK;
    },
  });
  return groups;
}

/** The steps holding `node`, innermost first, `node` included. */
function holders(g: CanvasGraph, node: CanvasNode): CanvasNode[] {
  const out = [node];
  for (let at = node; at.group !== undefined && out.length <= g.nodes.length;) {
    const owner = g.groups.find((group) => group.id === at.group)?.owner;
    const next = g.nodes.find((n) => n.id === owner);
    if (next === undefined) break;
    out.push(next);
    at = next;
  }
  return out;
}

/** What the steps `node` (one of the canvas graph `g`'s, or none) can read: the steps before it, its foreach items. */
export function stepScopeOf(g: CanvasGraph, node: CanvasNode | undefined): StepScope {
  const around = node === undefined ? [] : holders(g, node);
  const readable = node === undefined ? [] : readableSteps(g, node);
  const innermostForeach = (n: CanvasNode) =>
    holders(g, n)
      .slice(1)
      .find((h) => h.type === "foreach");
  const loops = around
    .slice(1)
    .filter((n) => n.type === "foreach")
    .reverse();
  return {
    steps: readable.map((n) => ({ name: n.name!, ...(n.type === undefined ? {} : { detail: n.type }) })),
    inForeach: loops.length > 0,
    foreach: loops.some((loop) => loop.name === undefined)
      ? []
      : loops.map((loop) => ({
          name: loop.name!,
          steps: readable.filter((n) => innermostForeach(n) === loop).map((n) => n.name!),
        })),
    deeper: false,
  };
}

/** What the step `node` (of `g`, the graph of `source`; or none) gives an expression in it: stepScopeOf, its gate. */
function placeScopeOf(source: Source, g: CanvasGraph, node: CanvasNode | undefined): PlaceScope {
  const around = node === undefined ? [] : holders(g, node);
  // The innermost gate's rows: a run gives a step the approval of the nearest gated step holding it.
  const gate = around.map((n) => n.badges.find((b) => b.kind === "manual_approval")).find((b) => b !== undefined);
  return {
    ...stepScopeOf(g, node),
    approvalGroups: gate === undefined ? null : approvalGroupsAt(source.doc, gate.range.start),
  };
}

/**
 * What an expression at `offset` of the workflow `source` (its text, or that text read already) can read. Read from
 * the text as it is, which may hold a mistake elsewhere: the steps the canvas's reading finds, and the YAML's variables.
 */
export function expressionScopeAt(source: string | Source, offset: number): ExpressionScope {
  const read = typeof source === "string" ? readSource(source) : source;
  const g = graph(read);
  const id = nodeAt(g, read.text, offset);
  const node = g.nodes.find((n) => n.id === id);
  const shared = node === undefined ? sharedTextAt(read, g, offset) : null;
  return {
    variables: variablesOf(read.doc),
    ...(shared === null
      ? placeScopeOf(read, g, node)
      : commonScope(shared.users.map((user) => placeScopeOf(read, g, user)))),
    shared,
  };
}
