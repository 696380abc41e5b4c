import { ErrorBody, IdParams, RateLimitErrorBody, StepTestBody, StepTestResponse } from "@wf/shared/api";
import { startExecution } from "@wf/shared/client";
import { WfError } from "@wf/shared/errors";
import { planStepTest, sourceInputs, type ExecutionSnapshot, type StepTestPlan } from "@wf/shared/execution";
import type { Store, WorkflowRecord } from "@wf/shared/store";
import { stepLineage, type Workflow } from "@wf/shared/workflow";
import { startableWorkflow, visibleExecution } from "../access/roles";
import { AnswerError } from "../errors";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { checkInputs, parseDefinition } from "./checked-definition";
import { ownerPlan } from "./owner-plan";
import { countConsoleRun } from "./console-runs";

/** Running one step of a workflow being edited, against what an earlier execution recorded (docs/rerun.md#testing-one-step). */
export const stepTestRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/console/workflows/{id}/step-tests",
    operationId: "consoleTestStep",
    summary:
      "Run one step of a workflow, saved or not, in the context an earlier execution recorded (triggerSource step_test)",
    description:
      "Only `step` runs: the execution ends with its status, its output being the execution's. The steps before it that " +
      "`fromExecution` completed are taken from it as recorded, marked `reused`, even if `yaml` changes them; the others are absent. " +
      "A step inside a foreach runs in the item `itemIndexes` names, the foreach's `items` evaluated anew; none of its containers is recorded. " +
      "The workflow's pinned outputs (docs/console.md, Pinned data) stand in for the top-level steps before `step` that have one, " +
      "with or without `fromExecution`, marked `pinned`; `usePins: false` ignores them. " +
      "Nothing is stored but the new execution: `yaml` is not saved as a version, and the source is not changed. " +
      "With `estimateOnly`, an `llm` or `agent` step does not run: its call is rendered and priced, the execution's output being the CostEstimate.",
    tag: "executions",
    auth: "console",
    params: IdParams,
    body: StepTestBody,
    status: 202,
    responses: {
      202: {
        description: "Accepted: the test's execution is stored PENDING and its start command is durable.",
        schema: StepTestResponse,
      },
      400: {
        description:
          "`step` is no step of the workflow (the message lists them), `itemIndexes` has more indexes than foreach steps hold it, `estimateOnly` names a step that is not `llm` or `agent`, `yaml` has mistakes (`WORKFLOW_INVALID`, each with its line and column), or the inputs do not fit.",
        schema: ErrorBody,
      },
      403: {
        description: "You only view this workflow (`FORBIDDEN`), the account is inactive, or X-CSRF-Token is wrong.",
        schema: ErrorBody,
      },
      404: {
        description:
          "No such workflow, or not visible to you; or `fromExecution` is none, not visible to you, or of another workflow.",
        schema: ErrorBody,
      },
      409: { description: "`fromExecution` has not finished (`status` says how it is).", schema: ErrorBody },
      429: {
        description:
          "Past the plan's step tests per minute or per day (the same numbers as its requests per key; counted per user, apart from the keys): `Retry-After` says when to try again.",
        schema: RateLimitErrorBody,
      },
      503: { description: "NATS or the store did not answer; nothing was started.", schema: ErrorBody },
    },
    async handler({ params, body }, { ctx, consoleUser, reply }) {
      const { userId } = consoleUser();
      // Tests are runs like any other: counted under the plan's windows, per user, apart from the keys'.
      await countConsoleRun(ctx, reply, consoleUser(), "step tests");
      // The right to start the workflow as it stands, as a console start needs it.
      const stored = (await startableWorkflow(ctx.store, params.id, userId)).value;
      // Unsaved text runs as it stands, within the owner's plan's bounds as a save is; a stored version is clamped.
      const { workflow } =
        body.yaml === undefined
          ? parseDefinition(stored.yaml, "version")
          : parseDefinition(body.yaml, "yaml", await ownerPlan(ctx.store, stored.ownerId, consoleUser()));
      const source =
        body.fromExecution === undefined ? null : await contextOf(ctx.store, stored, body.fromExecution, userId);
      // Taken now: a later pin or unpin does not change a test that has started.
      const pinned = body.usePins
        ? Object.fromEntries(Object.entries(stored.pins ?? {}).map(([n, p]) => [n, p.output]))
        : {};
      const plan = planOrRefuse(workflow, stored.id, body.step, source, {
        itemIndexes: body.itemIndexes ?? [],
        pinned,
      });
      if (body.estimateOnly === true) refuseEstimate(workflow, plan.step);
      const inputs = body.inputs ?? (source ? sourceInputs(source, workflow) : {});
      checkInputs(workflow, inputs);
      const executionId = await startExecution(
        ctx.publisher,
        ctx.ns,
        {
          workflow: {
            id: stored.id,
            name: workflow.name,
            ownerId: stored.ownerId,
            // Unsaved text is no version of the workflow.
            version: body.yaml === undefined ? stored.version : null,
            definition: workflow,
          },
          inputs,
          triggerSource: "step_test",
          // A test is run to be looked at: its step's input and logs are kept.
          enableMonitoring: true,
          stepTest: {
            step: plan.step,
            contextFrom: plan.contextFrom,
            itemIndexes: plan.itemIndexes,
            ...(body.estimateOnly === true ? { estimateOnly: true } : {}),
            ...(plan.pinnedSteps.length === 0
              ? {}
              : { pinned: Object.fromEntries(plan.pinnedSteps.map((n) => [n, pinned[n]])) }),
          },
        },
        { store: ctx.store, log: ctx.log, lanes: ctx.lanes },
      );
      return {
        executionId,
        step: plan.step,
        path: plan.path,
        itemIndexes: plan.itemIndexes,
        contextFrom: plan.contextFrom,
        reusedSteps: plan.reusedSteps,
        pinnedSteps: plan.pinnedSteps,
      };
    },
  }),
];

/**
 * The execution a test takes its context from: one the caller sees, of this workflow under its
 * current owner. Any other is answered as none, so that another owner's executions are never revealed.
 */
async function contextOf(store: Store, w: WorkflowRecord, id: string, userId: string): Promise<ExecutionSnapshot> {
  const source = (await visibleExecution(store, id, userId)).execution.value;
  if (source.workflowId !== w.id || source.ownerId !== w.ownerId)
    throw new WfError("NOT_FOUND", `execution ${id} not found`);
  return source;
}

/** Only a model call has a cost to estimate. */
function refuseEstimate(workflow: Workflow, step: string): void {
  const type = stepLineage(workflow.steps, step)?.step.type;
  if (type === "llm" || type === "agent") return;
  throw validationError([
    {
      in: "body",
      field: "estimateOnly",
      message: `step \`${step}\` is a ${type} step: only an llm or agent step has a cost to estimate`,
    },
  ]);
}

function planOrRefuse(
  workflow: Workflow,
  workflowId: string,
  step: string,
  source: ExecutionSnapshot | null,
  opts: { itemIndexes: readonly number[]; pinned: Record<string, unknown> },
): StepTestPlan {
  const planned = planStepTest(workflow, workflowId, step, source, opts);
  if (planned.ok) return planned.plan;
  const { problem } = planned;
  switch (problem.kind) {
    case "unknown_step":
      throw validationError([{ in: "body", field: "step", message: problem.message }]);
    case "bad_items":
      throw validationError([{ in: "body", field: "itemIndexes", message: problem.message }]);
    case "other_workflow":
      throw new WfError("NOT_FOUND", `execution ${source?.id ?? ""} not found`);
    case "not_terminal":
      throw new AnswerError("CONFLICT", problem.message, { status: problem.status });
    case "unreadable_source":
      throw new WfError("CONFLICT", problem.message);
  }
}
