import { createHash } from "node:crypto";
import { walkSteps, WorkflowSchema, type Step, type Workflow } from "../workflow/index";
import { TERMINAL_STATUSES, type ExecutionSnapshot, type ExecutionStatus, type StepStatus } from "./snapshot";
import { ZERO_USAGE, type Usage } from "./usage";

/** What a rerun of `source` from its top-level step `fromStep` reuses, and what it runs again. */
export interface RerunPlan {
  rerunOf: string;
  fromStep: string;
  /** The workflow the rerun runs: the edited one, or the source's own. */
  workflow: Workflow;
  /** Top-level steps before `fromStep`, in order: their states are taken from the source, not run. */
  reusedSteps: string[];
  /** Top-level steps from `fromStep` on: they run. */
  rerunSteps: string[];
  /** Every recorded path of the reused steps, the ones nested in them included (`loop[0].x`). */
  reusedPaths: string[];
  /**
   * Reused top-level steps that stand on a debugger's edit in the source: a `set` changed the output of the step or of
   * a step in it, or the input or a tool call's arguments it ran with. They are reused as edited, and marked so.
   */
  editedSteps: string[];
  /** The reused paths such an edit was made at. */
  editedPaths: string[];
  /** What the reused steps' LLM calls cost the source. */
  savedUsage: Usage;
}

export type RerunProblem =
  | { kind: "not_terminal"; status: ExecutionStatus; message: string }
  | { kind: "unknown_step"; knownSteps: string[]; message: string }
  | { kind: "changed_step"; step: string; message: string }
  | { kind: "not_reusable"; step: string; status: StepStatus | null; message: string }
  | { kind: "unreadable_source"; message: string };

export type RerunPlanResult = { ok: true; plan: RerunPlan } | { ok: false; problem: RerunProblem };

/** Only what completed (or was skipped by its condition) can stand in for a run. */
export const REUSABLE: ReadonlySet<StepStatus> = new Set(["COMPLETED", "SKIPPED"]);

/**
 * Decides a rerun, from the source's snapshot alone: the same answer for the console's dry run,
 * its start, `wf rerun` and the executor that builds the rerun's first snapshot. `workflow` is an
 * edited definition to run instead of the source's; the steps before `fromStep` must then be the
 * ones the source ran (a reused output is only meaningful for the step that produced it).
 */
export function planRerun(source: ExecutionSnapshot, fromStep: string, workflow?: Workflow): RerunPlanResult {
  const fail = (problem: RerunProblem): RerunPlanResult => ({ ok: false, problem });
  if (!TERMINAL_STATUSES.has(source.status)) {
    return fail({
      kind: "not_terminal",
      status: source.status,
      message: `execution ${source.id} is ${source.status}: only a finished execution (COMPLETED, FAILED, CANCELLED or INTERRUPTED) can be rerun`,
    });
  }
  const ran = WorkflowSchema.safeParse(source.definition);
  if (!ran.success)
    return fail({
      kind: "unreadable_source",
      message: `execution ${source.id}'s stored workflow definition no longer parses`,
    });
  const target = workflow ?? ran.data;
  const names = target.steps.map((s) => s.name);
  const at = names.indexOf(fromStep);
  if (at < 0) {
    return fail({
      kind: "unknown_step",
      knownSteps: names,
      message: `no top-level step \`${fromStep}\` in the workflow; its steps: ${names.join(", ")}`,
    });
  }
  for (let i = 0; i < at; i++) {
    const edited = target.steps[i]!;
    const original = ran.data.steps[i];
    if (original === undefined || stepHash(original) !== stepHash(edited)) {
      return fail({
        kind: "changed_step",
        step: edited.name,
        message: `step \`${edited.name}\` comes before \`${fromStep}\` but differs from the step execution ${source.id} ran there: rerun from \`${edited.name}\` or an earlier step, or leave it unchanged`,
      });
    }
  }
  const reused = target.steps.slice(0, at);
  const recorded = Object.keys(source.steps);
  for (const step of reused) {
    const status = source.steps[step.name]?.status ?? null;
    // A step the debugger skipped, or one holding such a step, did not run as its definition says.
    const skipped = pathsOf([step], recorded).find((p) => source.steps[p]!.byDebugger);
    if (skipped !== undefined) {
      return fail({
        kind: "not_reusable",
        step: step.name,
        status,
        message: `step \`${skipped}\` was skipped in the debugger in execution ${source.id}, so \`${step.name}\` cannot be reused: rerun from \`${step.name}\` or an earlier step`,
      });
    }
    if (status === null || !REUSABLE.has(status)) {
      return fail({
        kind: "not_reusable",
        step: step.name,
        status,
        message: `step \`${step.name}\` ${status === null ? "did not run" : `ended ${status}`} in execution ${source.id}, so it cannot be reused: rerun from \`${step.name}\` or an earlier step`,
      });
    }
  }
  const reusedPaths = pathsOf(reused, recorded);
  const editedPaths = editedAt(source, reusedPaths);
  return {
    ok: true,
    plan: {
      rerunOf: source.id,
      fromStep,
      workflow: target,
      reusedSteps: reused.map((s) => s.name),
      rerunSteps: names.slice(at),
      reusedPaths,
      editedSteps: reused.filter((step) => pathsOf([step], editedPaths).length > 0).map((s) => s.name),
      editedPaths,
      savedUsage: sumUsage(reusedPaths.map((p) => source.steps[p]!.usage ?? ZERO_USAGE)),
    },
  };
}

/** Debugger's edits that change what a step gave the later steps; `vars` belong to no step. */
const STEP_EDITS: ReadonlySet<string> = new Set(["output", "input", "arguments"]);

/** The paths among `paths` where the source's debugger edited what the step gave (in the order of `paths`). */
function editedAt(source: ExecutionSnapshot, paths: readonly string[]): string[] {
  const edited = new Set((source.debug?.edits ?? []).filter((e) => STEP_EDITS.has(e.field)).map((e) => e.stepPath));
  return paths.filter((p) => edited.has(p));
}

/**
 * The source's variables as the rerun's inputs: those the workflow to run still declares (an
 * edited workflow may have dropped some; one it added takes its default).
 */
export function sourceInputs(source: ExecutionSnapshot, workflow: Workflow): Record<string, unknown> {
  const declared = workflow.variables ?? {};
  return Object.fromEntries(Object.entries(source.vars).filter(([name]) => Object.hasOwn(declared, name)));
}

/**
 * A step's definition as a hash of its canonical JSON (keys sorted at every level), so key order never counts as a
 * change.
 */
export function stepHash(step: Step): string {
  return createHash("sha256").update(canonicalJson(step)).digest("hex");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * The recorded paths that belong to these top-level steps. Step names are unique in a workflow,
 * nested ones included, and a path starts with the name of a step: the step itself, a foreach's
 * iteration (`loop[0].x`), or a step of a parallel branch, recorded under its own name.
 */
export function pathsOf(steps: readonly Step[], recorded: readonly string[]): string[] {
  const names = new Set<string>();
  walkSteps(steps, (s) => names.add(s.name));
  return recorded.filter((path) => names.has(path.split(/[.[]/, 1)[0]!));
}

/** Rounded to the pico-dollar, as the executor sums costs: sums of binary fractions drift. */
export function sumUsage(usages: readonly Usage[]): Usage {
  const sum = { ...ZERO_USAGE };
  for (const u of usages) {
    sum.promptTokens += u.promptTokens;
    sum.completionTokens += u.completionTokens;
    sum.totalTokens += u.totalTokens;
    sum.costUsd += u.costUsd;
  }
  return { ...sum, costUsd: Math.round(sum.costUsd * 1e12) / 1e12 };
}
