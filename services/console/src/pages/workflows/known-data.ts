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

/** The results the run `view` kept under `prefix` (`each[0].` for a foreach's first item), by step name. */
function resultsUnder(view: ExecutionView, prefix: string): Record<string, KnownStep> {
  const results: Record<string, KnownStep> = {};
  for (const [path, step] of Object.entries(view.steps)) {
    const name = path.slice(prefix.length);
    if (path.startsWith(prefix) && !/[[.]/.test(name)) results[name] = resultOf(step);
  }
  return results;
}

/**
 * The items of each foreach of the run `view` that ran its first item (its steps' results are kept under
 * `<foreach path>[0].`), by its path in item 0 of each foreach holding it: at the top level, in a parallel's branch
 * (whose steps a run keeps beside the parallel), in the first item of another foreach. The run does not keep the items
 * themselves, so they are its definition's `items`, which the preview renders (a template) on what the run rendered
 * them on: its results of the steps before the foreach, and `rest`.
 */
function foreachItems(view: ExecutionView, rest: Record<string, unknown>): Record<string, KnownItems> {
  const foreach: Record<string, KnownItems> = {};
  /** Goes through the definition's steps `list`, run under `prefix` after the steps of `before` (which it adds to). */
  const walk = (list: unknown, prefix: string, before: Record<string, KnownStep>) => {
    for (const step of Array.isArray(list) ? list.map(fieldsOf) : []) {
      const { name, type } = step;
      if (typeof name !== "string") continue;
      const path = prefix + name;
      const item = `${path}[0].`;
      if (type === "parallel")
        for (const branch of Object.values(fieldsOf(step.branches))) walk(branch, prefix, { ...before });
      if (type === "foreach" && Object.keys(view.steps).some((p) => p.startsWith(item))) {
        foreach[path] = {
          run: view.id,
          path,
          items: step.items,
          context: { steps: { ...before }, ...rest },
          steps: resultsUnder(view, item),
        };
        walk(step.steps, item, { ...before });
      }
      if (Object.hasOwn(view.steps, path)) before[name] = resultOf(view.steps[path]!);
    }
  };
  walk(fieldsOf(view.definition).steps, "", {});
  return foreach;
}

/**
 * What the editor previews expressions on: each top-level step's result as the latest finished run (`view`) left it,
 * with `outputs` (the known outputs: the run's, over which the pins and this editor's step tests) in place of its
 * output, that run's variables and `execution` fields, and the items of its foreach steps.
 */
export function knownData(view: ExecutionView | undefined, outputs: Readonly<Record<string, unknown>>): KnownData {
  const steps = view ? resultsUnder(view, "") : {};
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
