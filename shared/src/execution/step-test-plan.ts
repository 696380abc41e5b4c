import { WorkflowSchema, type Workflow } from "../workflow/index";
import { pathsOf, REUSABLE, sumUsage } from "./rerun-plan";
import { TERMINAL_STATUSES, type ExecutionSnapshot, type ExecutionStatus } from "./snapshot";
import { ZERO_USAGE, type Usage } from "./usage";

/** What a step test runs, and what it takes from the execution it is tested against. */
export interface StepTestPlan {
  step: string;
  contextFrom: string | null;
  /** Top-level steps before `step` that the source completed (or skipped), in order: taken as recorded. */
  reusedSteps: string[];
  /** Every recorded path of the reused steps, the ones nested in them included. */
  reusedPaths: string[];
  savedUsage: Usage;
}

export type StepTestProblem =
  | { kind: "unknown_step"; knownSteps: string[]; message: string }
  | { kind: "other_workflow"; message: string }
  | { kind: "not_terminal"; status: ExecutionStatus; message: string }
  | { kind: "unreadable_source"; message: string };

export type StepTestPlanResult = { ok: true; plan: StepTestPlan } | { ok: false; problem: StepTestProblem };

/**
 * Decides a step test of `workflow`'s top-level `step`, for the console route, `wf run --step`
 * and the executor alike. Unlike a rerun, the steps before `step` may differ from those the
 * source ran: a test takes their recorded outputs as its context, and leaves out those the
 * source did not complete. Without a source nothing is reused: the step sees only variables.
 */
export function planStepTest(
  workflow: Workflow,
  workflowId: string,
  step: string,
  source: ExecutionSnapshot | null,
): StepTestPlanResult {
  const fail = (problem: StepTestProblem): StepTestPlanResult => ({ ok: false, problem });
  const names = workflow.steps.map((s) => s.name);
  const at = names.indexOf(step);
  if (at < 0) {
    return fail({
      kind: "unknown_step",
      knownSteps: names,
      message: `no top-level step \`${step}\` in the workflow; name one of its steps: ${names.join(", ")}`,
    });
  }
  if (source === null) {
    return { ok: true, plan: { step, contextFrom: null, reusedSteps: [], reusedPaths: [], savedUsage: ZERO_USAGE } };
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
  const before = new Set(names.slice(0, at));
  const reused = ran.data.steps.filter((s) => {
    const status = source.steps[s.name]?.status;
    return before.has(s.name) && status !== undefined && REUSABLE.has(status);
  });
  const reusedPaths = pathsOf(reused, Object.keys(source.steps));
  return {
    ok: true,
    plan: {
      step,
      contextFrom: source.id,
      reusedSteps: names.slice(0, at).filter((n) => reused.some((s) => s.name === n)),
      reusedPaths,
      savedUsage: sumUsage(reusedPaths.map((p) => source.steps[p]!.usage ?? ZERO_USAGE)),
    },
  };
}
