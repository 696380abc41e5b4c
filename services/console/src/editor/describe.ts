import { parseWorkflow, type VariableDef } from "@wf/shared/workflow";

/** What the run form needs of a workflow: its inputs, and the first step (where a debug run pauses). */
export interface WorkflowOutline {
  name: string;
  variables: Record<string, VariableDef>;
  firstStep: string | null;
}

/** The outline of a valid workflow; null while it has mistakes. */
export function describeWorkflow(text: string): WorkflowOutline | null {
  const parsed = parseWorkflow(text);
  if (!parsed.ok) return null;
  const { name, variables, steps } = parsed.workflow;
  return { name, variables: variables ?? {}, firstStep: steps[0]?.name ?? null };
}
