import { ConsoleLayoutBody, ConsoleWorkflowLayout, ErrorBody, IdParams, ValidationErrorBody } from "@wf/shared/api";
import { CasConflictError, WfError } from "@wf/shared/errors";
import { requireWriter, visibleWorkflow } from "../access/roles";
import { defineRoute, type Route } from "../routes/route";

/**
 * The canvas layout beside a workflow: where a person placed its steps. It is kept on the
 * workflow record, not in the YAML, and a change of it is not a new version of the workflow.
 */
export const consoleWorkflowLayoutRoutes: Route[] = [
  defineRoute({
    method: "PUT",
    path: "/api/console/workflows/{id}/layout",
    operationId: "consolePutWorkflowLayout",
    summary: "Keep the canvas positions a person chose for a workflow's steps (replaces the stored ones)",
    description:
      "Keyed by step name; steps left out are placed automatically. The workflow's version does not change. " +
      "A rename on the canvas sends the positions under the new name.",
    tag: "workflows",
    auth: "console",
    params: IdParams,
    body: ConsoleLayoutBody,
    status: 200,
    responses: {
      200: { description: "The layout now stored.", schema: ConsoleWorkflowLayout },
      400: { description: "A bad body: `details` names the position.", schema: ValidationErrorBody },
      403: { description: "You only view this workflow (or X-CSRF-Token is wrong).", schema: ErrorBody },
      404: { description: "No such workflow, or not visible to you.", schema: ErrorBody },
    },
    async handler({ params, body }, { ctx, consoleUser }) {
      // A concurrent save of the YAML is not this write's business: read again and keep it.
      for (let attempt = 1; ; attempt++) {
        const { workflow, role } = await visibleWorkflow(ctx.store, params.id, consoleUser().userId);
        requireWriter(role, "arranging a workflow's canvas");
        try {
          await ctx.store.workflows.update(
            { ...workflow.value, layout: { positions: body.positions } },
            workflow.version,
          );
          return { positions: body.positions };
        } catch (err) {
          if (!(err instanceof CasConflictError)) throw err;
          if (attempt >= 5)
            throw new WfError("UNAVAILABLE", "the workflow kept changing while its layout was stored: retry");
        }
      }
    },
  }),
];
