import { WorkflowDocument } from "./document";
import type { WorkflowIssue } from "./issues";
import type { Workflow } from "./schema";
import { validateWorkflowText, type OwnerBounds } from "./validate";

export type ParseResult =
  { ok: true; workflow: Workflow; document: WorkflowDocument } | { ok: false; errors: WorkflowIssue[] };

/**
 * Parses a workflow file into its model, plus the document a canvas edits and prints back.
 * On failure, every problem in the file, each with its line and column; `owner`: the bounds of the owner it is saved
 * for, where known.
 */
export function parseWorkflow(text: string, owner: OwnerBounds = {}): ParseResult {
  const result = validateWorkflowText(text, owner);
  if (!result.ok) return result;
  return { ok: true, workflow: result.workflow, document: new WorkflowDocument(text, result.yaml) };
}
