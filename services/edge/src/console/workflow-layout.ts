import { ConsoleLayoutBody, ConsoleWorkflowLayout, ErrorBody, IdParams, ValidationErrorBody } from "@wf/shared/api";
import { defineRoute, type Route } from "../routes/route";
import { updateBesideYaml } from "./beside-yaml";

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
      413: {
        description: "The workflow is too large to store with its layout, even without its earlier versions.",
        schema: ErrorBody,
      },
    },
    async handler({ params, body }, { ctx, consoleUser }) {
      const positions = body.positions;
      return await updateBesideYaml(
        ctx,
        params.id,
        consoleUser().userId,
        { doing: "arranging a workflow's canvas", stored: "its layout was" },
        () => Promise.resolve({ fields: { layout: { positions } }, answer: { positions } }),
      );
    },
  }),
];
