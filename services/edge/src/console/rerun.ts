import {
  ErrorBody,
  IdParams,
  RateLimitErrorBody,
  RerunBody,
  RerunPlanView,
  RerunQuery,
  RerunResponse,
} from "@wf/shared/api";
import { startExecution } from "@wf/shared/client";
import { WfError } from "@wf/shared/errors";
import { planRerun, sourceInputs, type ExecutionSnapshot, type RerunPlan } from "@wf/shared/execution";
import { storeNextVersion, type Store, type WorkflowRecord } from "@wf/shared/store";
import type { Workflow } from "@wf/shared/workflow";
import { startableWorkflow, visibleExecution } from "../access/roles";
import { AnswerError } from "../errors";
import { defineRoute, type Route } from "../routes/route";
import { validationError } from "../routes/validate";
import { checkInputs, parseDefinition, type EditedDefinition } from "./checked-definition";
import { CONSOLE_RUNS_LIMITED, countConsoleRun } from "./console-runs";
import { ownerPlan } from "./owner-plan";
import { versionsOf } from "./workflow-versions";

/** Rerunning a finished execution from one of its steps (docs/rerun.md). */
export const rerunRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/console/executions/{id}/rerun",
    operationId: "consoleRerunExecution",
    summary:
      "Rerun a finished execution from one of its top-level steps, reusing what the steps before it recorded (triggerSource console)",
    description:
      "The steps before fromStep are not run: their states (outputs, artifacts, usage) are the source's, marked `reused`. " +
      "With `definition`, an edited workflow runs, and is stored as the workflow's next version; with `version`, a stored version runs (the latest saved, say). " +
      "Either way the steps before fromStep must be unchanged. " +
      "With `dryRun=true`, the answer is the plan and nothing is started or stored.",
    tag: "executions",
    auth: "console",
    params: IdParams,
    query: RerunQuery,
    body: RerunBody,
    status: 202,
    responses: {
      200: {
        description: "dryRun: what the rerun would reuse and run, and what the reuse saves; nothing was started.",
        schema: RerunPlanView,
      },
      202: {
        description: "Accepted: the new execution is stored PENDING and its start command is durable.",
        schema: RerunResponse,
      },
      403: {
        description:
          "You only view this workflow (`FORBIDDEN`), the account is inactive, or X-CSRF-Token is missing or wrong.",
        schema: ErrorBody,
      },
      404: {
        description:
          "No such execution, or not visible to you; or its workflow is no longer stored, or no longer visible to you.",
        schema: ErrorBody,
      },
      409: {
        description:
          "The execution has not finished (`status` says how it is), a step before fromStep did not complete in it, the edited definition " +
          "changes a step before fromStep (`step` names the first), or its workflow is no longer stored for the edit.",
        schema: ErrorBody,
      },
      429: { description: CONSOLE_RUNS_LIMITED, schema: RateLimitErrorBody },
      503: { description: "NATS or the store did not answer; nothing was started.", schema: ErrorBody },
    },
    async handler({ params, query, body }, { ctx, reply, consoleUser }) {
      const { userId } = consoleUser();
      const source = (await visibleExecution(ctx.store, params.id, userId)).execution.value;
      // A rerun starts the workflow again, so it needs the right to start it as it stands now,
      // whoever the source belongs to: a sub-workflow's child belongs to its parent's owner, who
      // may only view the child's workflow (or not see it any more).
      const stored = await startableWorkflow(ctx.store, source.workflowId, userId);
      if (body.version !== undefined && body.definition !== undefined) {
        throw validationError([{ in: "body", field: "version", message: "send `version` or `definition`, not both" }]);
      }
      // An edited definition is a save (it becomes the next version), held to the owner's plan as one.
      const edited =
        body.definition === undefined
          ? null
          : parseDefinition(body.definition, "definition", await ownerPlan(ctx.store, source.ownerId, consoleUser()));
      const kept = body.version === undefined ? null : keptVersion(stored.value, body.version);
      const plan = planOrRefuse(source, body.fromStep, (edited ?? kept)?.workflow);
      const inputs = body.inputs ?? sourceInputs(source, plan.workflow);
      checkInputs(plan.workflow, inputs);
      const fields = {
        rerunOf: plan.rerunOf,
        fromStep: plan.fromStep,
        reusedSteps: plan.reusedSteps,
        savedUsage: plan.savedUsage,
        editedSteps: plan.editedSteps,
      };
      if (query.dryRun) {
        void reply.code(200);
        return { ...fields, rerunSteps: plan.rerunSteps };
      }
      await countConsoleRun(ctx, reply, consoleUser());
      const version = edited
        ? await storeEditedVersion(ctx.store, source, edited)
        : (kept?.version ?? source.workflowVersion);
      const executionId = await startExecution(
        ctx.publisher,
        ctx.ns,
        {
          workflow: {
            id: source.workflowId,
            name: plan.workflow.name,
            ownerId: source.ownerId,
            version,
            definition: (edited ?? kept)?.workflow ?? source.definition,
          },
          inputs,
          triggerSource: "console",
          enableMonitoring: source.enableMonitoring,
          rerun: { of: source.id, fromStep: plan.fromStep },
        },
        { store: ctx.store, log: ctx.log, lanes: ctx.lanes },
      );
      return { executionId, ...fields };
    },
  }),
];

/**
 * A version the workflow still keeps, parsed from its text as the current validator reads it (a
 * version saved under an older one may no longer pass). Running it stores nothing.
 */
function keptVersion(w: WorkflowRecord, version: number): EditedDefinition & { version: number } {
  const versions = versionsOf(w);
  const found = versions.find((v) => v.version === version);
  if (!found) {
    const kept = versions.map((v) => v.version);
    const range = kept.length === 1 ? `${kept[0]}` : `${kept[0]} to ${kept[kept.length - 1]}`;
    throw validationError([
      { in: "body", field: "version", message: `workflow ${w.id} has no version ${version} kept; it keeps ${range}` },
    ]);
  }
  return { version, ...parseDefinition(found.yaml, "version") };
}

function planOrRefuse(source: ExecutionSnapshot, fromStep: string, workflow: Workflow | undefined): RerunPlan {
  const planned = planRerun(source, fromStep, workflow);
  if (planned.ok) return planned.plan;
  const { problem } = planned;
  switch (problem.kind) {
    case "unknown_step":
      throw validationError([{ in: "body", field: "fromStep", message: problem.message }]);
    case "not_terminal":
      throw new AnswerError("CONFLICT", problem.message, { status: problem.status });
    case "changed_step":
    case "not_reusable":
      throw new AnswerError("CONFLICT", problem.message, { step: problem.step });
    case "unreadable_source":
      throw new WfError("CONFLICT", problem.message);
  }
}

/**
 * The edited workflow becomes the stored workflow's next version (as `wf workflow import --id` makes one); returns the
 * version that runs.
 */
async function storeEditedVersion(store: Store, source: ExecutionSnapshot, edited: EditedDefinition): Promise<number> {
  const version = await storeNextVersion(store, source.workflowId, source.ownerId, edited);
  if (version === null) {
    throw new WfError(
      "CONFLICT",
      `workflow ${source.workflowId} is not stored any more, so the edited definition cannot become its next version`,
    );
  }
  return version;
}
