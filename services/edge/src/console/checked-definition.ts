import type { FieldProblem } from "@wf/shared/api";
import type { Plan } from "@wf/shared/auth";
import { WfError } from "@wf/shared/errors";
import { parseWorkflow, resolveVariables, type Workflow } from "@wf/shared/workflow";
import { validationError } from "../routes/validate";

export interface EditedDefinition {
  yaml: string;
  workflow: Workflow;
}

/**
 * A workflow's YAML, checked as `wf validate` checks a file: every mistake with its line and column, under `field`;
 * with the owner's `plan` where it is submitted to run as it stands (code-timeout-bound.ts), as a save is.
 */
export function parseDefinition(yaml: string, field: string, plan?: Plan): EditedDefinition {
  const parsed = parseWorkflow(yaml, plan === undefined ? {} : { plan });
  if (!parsed.ok) {
    const details: FieldProblem[] = parsed.errors.map((e) => ({
      in: "body",
      field,
      message: `${e.line}:${e.column} ${e.path === "" ? "" : `${e.path}: `}${e.message}`,
    }));
    throw new WfError(
      "WORKFLOW_INVALID",
      `${field}: the workflow has ${details.length} mistake${details.length === 1 ? "" : "s"}`,
      details,
    );
  }
  return { yaml, workflow: parsed.workflow };
}

/** Inputs are checked before anything is stored: one problem per input, as `inputs.<name>`. */
export function checkInputs(workflow: Workflow, inputs: Record<string, unknown>): void {
  const resolved = resolveVariables(workflow, inputs);
  if (!resolved.ok)
    throw validationError(resolved.errors.map((e) => ({ in: "body", field: `inputs.${e.name}`, message: e.message })));
}
