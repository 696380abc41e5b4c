import { stepLineage, walkSteps, WorkflowSchema, type Step, type StepLineage, type Workflow } from "../workflow/index";
import { pathsOf, REUSABLE, sumUsage } from "./rerun-plan";
import { TERMINAL_STATUSES, type ExecutionSnapshot, type ExecutionStatus } from "./snapshot";
import { ZERO_USAGE, type Usage } from "./usage";

/** What a step test runs, and what it takes from the execution it is tested against. */
export interface StepTestPlan {
  step: string;
  /** Where the step's run is recorded: its name, or inside a foreach item `loop[2].name`. */
  path: string;
  /** The foreach item the step runs in, one index per foreach holding it, outermost first. */
  itemIndexes: number[];
  contextFrom: string | null;
  /**
   * The steps before `step` that the source completed (or skipped), in order, taken as recorded:
   * top-level ones, then those before it in each step list holding it (as paths, `loop[2].fetch`).
   */
  reusedSteps: string[];
  /** Top-level steps before `step` with a pinned output, in order: the pin stands in for them, whatever the source recorded. */
  pinnedSteps: string[];
  /** Every recorded path of the reused steps, the ones nested in them included. */
  reusedPaths: string[];
  savedUsage: Usage;
}

export type StepTestProblem =
  | { kind: "unknown_step"; knownSteps: string[]; message: string }
  | { kind: "bad_items"; message: string }
  | { kind: "other_workflow"; message: string }
  | { kind: "not_terminal"; status: ExecutionStatus; message: string }
  | { kind: "unreadable_source"; message: string };

export type StepTestPlanResult = { ok: true; plan: StepTestPlan } | { ok: false; problem: StepTestProblem };

/**
 * Decides a step test of `workflow`'s `step`, for the console route, `wf run --step` and the
 * executor alike. Unlike a rerun, the steps before it may differ from those the source ran: a
 * test takes their recorded outputs as its context, and leaves out those the source did not
 * complete. A top-level step before it named in `pinned` takes its pin instead, with or without a
 * source. A step inside a foreach runs in the item `itemIndexes` names (0 by default).
 */
export function planStepTest(
  workflow: Workflow,
  workflowId: string,
  step: string,
  source: ExecutionSnapshot | null,
  opts: { itemIndexes?: readonly number[]; pinned?: Readonly<Record<string, unknown>> } = {},
): StepTestPlanResult {
  const fail = (problem: StepTestProblem): StepTestPlanResult => ({ ok: false, problem });
  const lineage = stepLineage(workflow.steps, step);
  if (lineage === null) {
    const known: string[] = [];
    walkSteps(workflow.steps, (s) => known.push(s.name));
    return fail({
      kind: "unknown_step",
      knownSteps: known,
      message: `no step \`${step}\` in the workflow; name one of its steps: ${known.join(", ")}`,
    });
  }
  const { itemIndexes = [], pinned = {} } = opts;
  const foreaches = lineage.ancestors.filter((a) => a.type === "foreach");
  if (itemIndexes.length > foreaches.length) {
    return fail({
      kind: "bad_items",
      message:
        foreaches.length === 0
          ? `step \`${step}\` is in no foreach: give no item indexes`
          : `step \`${step}\` is in ${foreaches.length} foreach (${foreaches.map((f) => f.name).join(", ")}): give at most ${foreaches.length} item indexes, outermost first`,
    });
  }
  const items = foreaches.map((_, i) => itemIndexes[i] ?? 0);
  const prefixes = levelPrefixes(lineage, items);
  const path = prefixes.at(-1)! + step;
  const names = workflow.steps.map((s) => s.name);
  const topBefore = names.slice(0, names.indexOf((lineage.ancestors[0] ?? lineage.step).name));
  const pinnedSteps = topBefore.filter((n) => Object.hasOwn(pinned, n));
  const base = { step, path, itemIndexes: items, pinnedSteps };
  if (source === null) {
    return { ok: true, plan: { ...base, contextFrom: null, reusedSteps: [], reusedPaths: [], savedUsage: ZERO_USAGE } };
  }
  if (source.workflowId !== workflowId) {
    return fail({ kind: "other_workflow", message: `execution ${source.id} is not an execution of this workflow` });
  }
  if (!TERMINAL_STATUSES.has(source.status)) {
    return fail({
      kind: "not_terminal",
      status: source.status,
      message: `execution ${source.id} is ${source.status}: test against a finished execution (COMPLETED, FAILED, CANCELLED or INTERRUPTED), or wait for it to end`,
    });
  }
  const ran = WorkflowSchema.safeParse(source.definition);
  if (!ran.success) {
    return fail({
      kind: "unreadable_source",
      message: `execution ${source.id}'s stored workflow definition no longer parses`,
    });
  }
  const reusable = (p: string) => {
    const status = source.steps[p]?.status;
    return status !== undefined && REUSABLE.has(status);
  };
  const recorded = Object.keys(source.steps);
  // Top level: nested paths from the definition the source ran, as a rerun reads them; a pin wins.
  const before = new Set(topBefore.filter((n) => !pinnedSteps.includes(n)));
  const reusedTop = ran.data.steps.filter((s) => before.has(s.name) && reusable(s.name));
  const reusedSteps = names.filter((n) => reusedTop.some((s) => s.name === n));
  const reusedPaths = pathsOf(reusedTop, recorded);
  // Inside each step list that holds the step: the steps before it in the same item or branch.
  for (let level = 1; level < lineage.lists.length; level++) {
    const list = lineage.lists[level]!;
    const held = lineage.ancestors[level] ?? lineage.step;
    const prefix = prefixes[level]!;
    for (const sibling of list.slice(0, list.indexOf(held))) {
      if (!reusable(prefix + sibling.name)) continue;
      reusedSteps.push(prefix + sibling.name);
      reusedPaths.push(...pathsUnder(prefix, sibling, recorded));
    }
  }
  return {
    ok: true,
    plan: {
      ...base,
      contextFrom: source.id,
      reusedSteps,
      reusedPaths,
      savedUsage: sumUsage(reusedPaths.map((p) => source.steps[p]!.usage ?? ZERO_USAGE)),
    },
  };
}

/**
 * The path prefix of each level of a lineage: "" at the top, `loop[i].` inside a foreach's item
 * i; a parallel's branches record their steps beside it, under its own prefix.
 */
function levelPrefixes(lineage: StepLineage, items: readonly number[]): string[] {
  const prefixes = [""];
  let foreach = 0;
  for (const ancestor of lineage.ancestors) {
    const prefix = prefixes.at(-1)!;
    prefixes.push(ancestor.type === "foreach" ? `${prefix}${ancestor.name}[${items[foreach++]!}].` : prefix);
  }
  return prefixes;
}

/** The recorded paths of `step` under `prefix`, the ones nested in it included. */
function pathsUnder(prefix: string, step: Step, recorded: readonly string[]): string[] {
  return pathsOf(
    [step],
    recorded.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)),
  ).map((p) => prefix + p);
}
