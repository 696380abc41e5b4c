import { STEP_NAME_PATTERN } from "../workflow/schema-basics";
import { STEP_TYPES, type StepType } from "../workflow/step-types";
import { runOperation, type Plan } from "./edits";
import { insertion, pieceOf, removal, seqIndent } from "./layout";
import { defaultStep, nameSource, newStepPiece } from "./palette";
import type { Source } from "./source";
import { agentNames, findList, withDescendants, type ListSite, type StepSite, type StepTree } from "./steps";
import type { EditResult, StepList } from "./types";

export interface AddStepOp {
  type: StepType;
  /** The top-level list when left out. */
  list?: StepList;
  /** Position in the list; its end when left out. */
  index?: number;
  /** A unique `step_<n>` when left out. */
  name?: string;
}

export interface DeleteStepOp {
  id: string;
}

export interface MoveStepOp {
  id: string;
  to: StepList;
  /** The step's position in the destination list once it is there. */
  index: number;
}

function describeList(ref: StepList): string {
  if (ref.parent === undefined) return "the top-level steps";
  return ref.branch === undefined ? `the steps of \`${ref.parent}\`` : `branch \`${ref.branch}\` of \`${ref.parent}\``;
}

function listOrError(tree: StepTree, ref: StepList): ListSite | string {
  return findList(tree, ref) ?? `no list ${describeList(ref)}`;
}

/** Checks a name the user chose for a new step. */
export function newNameProblem(tree: StepTree, name: string): string | undefined {
  if (!STEP_NAME_PATTERN.test(name))
    return `\`${name}\` is not a valid step name: start with a letter or \`_\` and use only letters, digits, \`_\` and \`-\``;
  return tree.steps.some((site) => site.name === name) ? `a step named \`${name}\` already exists` : undefined;
}

/** A name source that hands out `first` (when given) before its generated names. */
export function namesFor(tree: StepTree, first: string | undefined): () => string {
  const generated = nameSource(tree.steps.map((site) => site.name));
  let pending = first;
  return () => {
    const name = pending ?? generated();
    pending = undefined;
    return name;
  };
}

/** Adds a new step of `type`, in its list's indentation and style (a one-line flow mapping in a flow list). */
export function addStep(text: string, op: AddStepOp): EditResult {
  return runOperation(text, (source, tree) => {
    if (!STEP_TYPES.includes(op.type)) return `\`${op.type}\` is not a step type: use one of ${STEP_TYPES.join(", ")}`;
    const list = listOrError(tree, op.list ?? {});
    if (typeof list === "string") return list;
    const index = op.index ?? list.items.length;
    if (!Number.isInteger(index) || index < 0 || index > list.items.length)
      return `position ${index} is outside ${describeList(list.ref)} (0 to ${list.items.length})`;
    const problem = op.name === undefined ? undefined : newNameProblem(tree, op.name);
    if (problem !== undefined) return problem;
    const flow = list.seq.flow === true;
    const step = defaultStep(op.type, namesFor(tree, op.name), agentNames(source), flow);
    if (!step) return "an agent step names one of the workflow's `agents`: define an agent first";
    const edits = insertion(source, tree, list, index, newStepPiece(step, flow, seqIndent(source, tree)));
    if (typeof edits === "string") return edits;
    return { edits, id: (step as { name: string }).name };
  });
}

function onlyStepProblem(site: StepSite): string | undefined {
  if (site.list.items.length > 1) return undefined;
  return site.list.owner
    ? `\`${site.id}\` is the only step of ${describeList(site.list.ref)}, which needs at least one: delete or unwrap \`${site.list.owner.id}\` instead`
    : `\`${site.id}\` is the workflow's only step, and a workflow needs at least one`;
}

/**
 * Deletes a step with its comment lines (and whatever is nested in it). References to it that
 * remain are not a reason to refuse, since the user may be about to rewrite them: they come back
 * as warnings for the canvas to show.
 */
export function deleteStep(text: string, op: DeleteStepOp): EditResult {
  return runOperation(text, (source, tree) => {
    const site = tree.byId.get(op.id);
    if (!site) return `no step \`${op.id}\``;
    const problem = onlyStepProblem(site);
    if (problem !== undefined) return problem;
    return {
      edits: [removal(source, site)],
      removed: withDescendants(site).flatMap((s) => (s.name === undefined ? [] : [s.name])),
    };
  });
}

function movePlan(source: Source, tree: StepTree, op: MoveStepOp): Plan | string {
  const site = tree.byId.get(op.id);
  if (!site) return `no step \`${op.id}\``;
  const list = listOrError(tree, op.to);
  if (typeof list === "string") return list;
  if (list.owner && withDescendants(site).includes(list.owner)) return `\`${site.id}\` cannot move into itself`;
  const same = list === site.list;
  const room = same ? list.items.length - 1 : list.items.length;
  if (!Number.isInteger(op.index) || op.index < 0 || op.index > room)
    return `position ${op.index} is outside ${describeList(list.ref)} (0 to ${room})`;
  if (same && op.index === site.index) return { edits: [], id: site.id };
  const problem = same ? undefined : onlyStepProblem(site);
  if (problem !== undefined) return problem;
  const inserted = insertion(source, tree, list, op.index, pieceOf(source, site), site);
  if (typeof inserted === "string") return inserted;
  return {
    edits: [
      ...inserted,
      removal(
        source,
        site,
        inserted.map((edit) => edit.from),
      ),
    ],
    id: site.id,
  };
}

/** Moves a step (with its comment lines and nested steps) within its list, or into another list, re-indented for it. */
export function moveStep(text: string, op: MoveStepOp): EditResult {
  return runOperation(text, (source, tree) => movePlan(source, tree, op));
}
