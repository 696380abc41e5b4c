import type { ExecutionView } from "../../api/types";
import type { KnownData, KnownStep } from "../../editor";

/**
 * What the editor previews expressions on: each top-level step's result as the latest finished run (`view`) left it,
 * with `outputs` (the known outputs: the run's, over which the pins and this editor's step tests) in place of its
 * output, and that run's variables and `execution` fields.
 */
export function knownData(view: ExecutionView | undefined, outputs: Readonly<Record<string, unknown>>): KnownData {
  const steps: Record<string, KnownStep> = {};
  for (const [path, step] of Object.entries(view?.steps ?? {}))
    if (!/[[.]/.test(path))
      steps[path] = { output: step.output ?? null, status: step.status, duration: step.duration, error: step.error };
  // A pin or a test's output is what the steps after it read: COMPLETED, how long it took not known here.
  for (const [name, output] of Object.entries(outputs))
    if (!(view?.steps[name]?.status === "COMPLETED" && view.steps[name].output === output))
      steps[name] = { output, status: "COMPLETED", duration: null, error: null };
  if (!view) return { steps, vars: null, execution: null };
  const name = (view.definition as { name?: unknown } | null)?.name;
  return {
    steps,
    vars: view.variables,
    execution: {
      id: view.id,
      workflowId: view.workflowId,
      workflowName: typeof name === "string" ? name : null,
      triggerSource: view.triggerSource,
      startedAt: view.startAt,
    },
  };
}
