import type { ExecutionView } from "../../api/types";
import type { KnownData, KnownItems, KnownStep } from "../../editor";

const resultOf = (step: ExecutionView["steps"][string]): KnownStep => ({
  output: step.output ?? null,
  status: step.status,
  duration: step.duration,
  error: step.error,
});

/** A record's fields, or nothing for any other value (the run's definition is whatever the service stored). */
const fieldsOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * The items of each top-level foreach of the run `view` that ran its first item (its steps' results are kept under
 * `<foreach>[0].`): the run does not keep the items themselves, so they are its definition's `items`, which the preview
 * renders (a template) on what the run rendered them on: its results of the steps before the foreach, and `rest`.
 */
function foreachItems(view: ExecutionView, rest: Record<string, unknown>): Record<string, KnownItems> {
  const listed = fieldsOf(view.definition).steps;
  const foreach: Record<string, KnownItems> = {};
  const before: Record<string, KnownStep> = {};
  for (const step of Array.isArray(listed) ? listed.map(fieldsOf) : []) {
    const { name, type, items } = step;
    if (typeof name !== "string") continue;
    const ran = Object.keys(view.steps).some((path) => path.startsWith(`${name}[0].`));
    if (type === "foreach" && ran) foreach[name] = { items, context: { steps: { ...before }, ...rest } };
    if (Object.hasOwn(view.steps, name)) before[name] = resultOf(view.steps[name]!);
  }
  return foreach;
}

/**
 * What the editor previews expressions on: each top-level step's result as the latest finished run (`view`) left it,
 * with `outputs` (the known outputs: the run's, over which the pins and this editor's step tests) in place of its
 * output, that run's variables and `execution` fields, and the items of its foreach steps.
 */
export function knownData(view: ExecutionView | undefined, outputs: Readonly<Record<string, unknown>>): KnownData {
  const steps: Record<string, KnownStep> = {};
  for (const [path, step] of Object.entries(view?.steps ?? {})) if (!/[[.]/.test(path)) steps[path] = resultOf(step);
  // A pin or a test's output is what the steps after it read: COMPLETED, how long it took not known here.
  for (const [name, output] of Object.entries(outputs))
    if (!(view?.steps[name]?.status === "COMPLETED" && view.steps[name].output === output))
      steps[name] = { output, status: "COMPLETED", duration: null, error: null };
  if (!view) return { steps, vars: null, execution: null, foreach: {} };
  const name = fieldsOf(view.definition).name;
  const rest = {
    vars: view.variables,
    execution: {
      id: view.id,
      workflowId: view.workflowId,
      workflowName: typeof name === "string" ? name : null,
      triggerSource: view.triggerSource,
      startedAt: view.startAt,
    },
  };
  return { steps, ...rest, foreach: foreachItems(view, rest) };
}
