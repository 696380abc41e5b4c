import { ErrorBody, IdParams, StepTestBody, StepTestResponse } from "@wf/shared/api";
import { startExecution } from "@wf/shared/client";
import { WfError } from "@wf/shared/errors";
import { planStepTest, sourceInputs, type ExecutionSnapshot, type StepTestPlan } from "@wf/shared/execution";
import type { Store, WorkflowRecord } from "@wf/shared/store";
import type { Workflow } from "@wf/shared/workflow";
import { startableWorkflow, visibleExecution } from "../access/roles";
import { AnswerError } from "../errors";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { checkInputs, parseDefinition } from "./checked-definition";

/** Running one step of a workflow being edited, against what an earlier execution recorded (docs/rerun.md#testing-one-step). */
export const stepTestRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/console/workflows/{id}/step-tests",
    operationId: "consoleTestStep",
    summary:
      "Run one top-level step of a workflow, saved or not, in the context an earlier execution recorded (triggerSource step_test)",
    description:
      "Only `step` runs: the execution ends with its status, its output being the execution's. The steps before it that " +
      "`fromExecution` completed are taken from it as recorded, marked `reused`, even if `yaml` changes them; the others are absent. " +
      "Nothing is stored but the new execution: `yaml` is not saved as a version, and the source is not changed.",
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
          "`step` is not a top-level step (the message lists them), `yaml` has mistakes (`WORKFLOW_INVALID`, each with its line and column), or the inputs do not fit.",
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
      503: { description: "NATS or the store did not answer; nothing was started.", schema: ErrorBody },
    },
    async handler({ params, body }, { ctx, consoleUser }) {
      const { userId } = consoleUser();
      // The right to start the workflow as it stands, as a console start needs it.
      const stored = (await startableWorkflow(ctx.store, params.id, userId)).value;
      const { workflow } = parseDefinition(body.yaml ?? stored.yaml, body.yaml === undefined ? "version" : "yaml");
      const source =
        body.fromExecution === undefined ? null : await contextOf(ctx.store, stored, body.fromExecution, userId);
      const plan = planOrRefuse(workflow, stored.id, body.step, source);
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
          stepTest: { step: plan.step, contextFrom: plan.contextFrom },
        },
        { store: ctx.store, log: ctx.log },
      );
      return { executionId, step: plan.step, contextFrom: plan.contextFrom, reusedSteps: plan.reusedSteps };
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

function planOrRefuse(
  workflow: Workflow,
  workflowId: string,
  step: string,
  source: ExecutionSnapshot | null,
): StepTestPlan {
  const planned = planStepTest(workflow, workflowId, step, source);
  if (planned.ok) return planned.plan;
  const { problem } = planned;
  switch (problem.kind) {
    case "unknown_step":
      throw validationError([{ in: "body", field: "step", message: problem.message }]);
    case "other_workflow":
      throw new WfError("NOT_FOUND", `execution ${source?.id ?? ""} not found`);
    case "not_terminal":
      throw new AnswerError("CONFLICT", problem.message, { status: problem.status });
    case "unreadable_source":
      throw new WfError("CONFLICT", problem.message);
  }
}
