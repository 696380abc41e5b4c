import { expressionScopeAt, type StepScope } from "./expression-scope";

/** A step's result as an expression reads it: `steps.<name>`. */
export interface KnownStep {
  output: unknown;
  status: string;
  duration: number | null;
  error: string | null;
}

/** A foreach's items as the latest finished run had them: a preview reads `item` inside it as their first. */
export interface KnownItems {
  /** The id of that run: with `path` and `items`, what item 0 is evaluated once for (preview-job.ts's FirstItems). */
  run: string;
  /** The foreach's path in item 0 of each foreach holding it: its key in KnownData.foreach. */
  path: string;
  /** Its `items` as that run's definition wrote them: a list, or a template the preview renders as the run did. */
  items: unknown;
  /**
   * What that run rendered them on: its results of the steps before the foreach, its variables and `execution`; in a
   * foreach nested in another, the outer one's first item too, which the preview gives it.
   */
  context: Record<string, unknown>;
  /** The results of the steps of its first item in that run, by name (kept under `<foreach path>[0].<name>`). */
  steps: Readonly<Record<string, KnownStep>>;
}

/** What the editor knows of a run of its workflow, to preview expressions on (docs/console.md#the-build-loop). */
export interface KnownData {
  /** Top-level steps by name: the latest finished run's results, over which the pins, then this editor's step tests. */
  steps: Readonly<Record<string, KnownStep>>;
  /** The latest finished run's variables; null without one. */
  vars: Readonly<Record<string, unknown>> | null;
  /** The latest finished run's `execution` fields; null without one. */
  execution: Readonly<Record<string, unknown>> | null;
  /**
   * The foreach steps whose first item the latest finished run ran, by their path in item 0 of each foreach holding
   * them: `outer` at the top level or in a parallel's branch, `outer[0].inner` in the first item of `outer`.
   */
  foreach: Readonly<Record<string, KnownItems>>;
}

export const NOTHING_KNOWN: KnownData = { steps: {}, vars: null, execution: null, foreach: {} };

/** What one expression is previewed on. */
export interface PreviewData {
  /**
   * The known results of the steps that run before the expression's step, and the variables and `execution` when a run
   * is known. A name left out is unknown; `secrets` is never in it.
   */
  context: Record<string, unknown>;
  /** The steps of `context` whose result is their run in item 0 of a foreach holding the expression's step. */
  itemSteps: string[];
  /**
   * The items of the foreach steps holding the expression's step, outermost first, as the latest finished run had
   * them: `item` is the first of the last; empty when that one's are not known, or `item` is another's (`deeper`).
   */
  items: KnownItems[];
}

/** The paths of the foreach steps holding an expression in `scope`, outermost first, in item 0 of each. */
const foreachPaths = (scope: StepScope) =>
  scope.foreach.map((_, i) =>
    scope.foreach
      .slice(0, i + 1)
      .map((f) => f.name)
      .join("[0]."),
  );

/**
 * What an expression in `scope` is previewed on, as item 0 of each foreach holding it in the latest finished run. A
 * step is read as that run resolves `steps.<name>` in an item: the innermost item's own run of it first, outward to the
 * top level; a step inside a foreach has no pin or step test, so only its run in item 0 is known.
 */
export function previewData(scope: StepScope, known: KnownData): PreviewData {
  const items = foreachPaths(scope).flatMap((path) =>
    Object.hasOwn(known.foreach, path) ? [known.foreach[path]!] : [],
  );
  const inItem = new Set(scope.foreach.flatMap((f) => f.steps));
  const innermostFirst = items.map((i) => i.steps).reverse();
  const steps: Record<string, KnownStep> = {};
  const itemSteps: string[] = [];
  for (const { name } of scope.steps) {
    const found = innermostFirst.find((results) => Object.hasOwn(results, name));
    if (found !== undefined) itemSteps.push(name);
    const results = found ?? (inItem.has(name) ? undefined : known.steps);
    if (results !== undefined && Object.hasOwn(results, name)) steps[name] = results[name]!;
  }
  return {
    context: {
      steps,
      ...(known.vars === null ? {} : { vars: known.vars }),
      ...(known.execution === null ? {} : { execution: known.execution }),
    },
    itemSteps,
    items: items.length === scope.foreach.length && !scope.deeper ? items : [],
  };
}

/** The outputs an expression at one place of a workflow reads as `steps.<name>.output`, for picking and completion. */
export interface ReadableOutputs {
  /**
   * The steps the place reads, in their order (StepScope's): those before it in its own foreach item or parallel
   * branch, then those before each step holding it, outermost first; never another branch's, which a run may or may
   * not have reached by then.
   */
  before: string[];
  /** The known output of each step of `before` by name (a step left out is unknown there, or not read). */
  outputs: Readonly<Record<string, unknown>>;
  /** The steps of `outputs` whose output is their run in item 0 of a foreach holding the place. */
  itemSteps: string[];
  /** The items of the foreach steps holding the place, as previewData has them: `item` is the first of the last. */
  items: KnownItems[];
}

/** What an expression at `offset` of the workflow `text` reads as `steps.<name>.output`. */
export type OutputsAt = (text: string, offset: number) => ReadableOutputs;

/**
 * The outputs an expression in `scope` reads, as its preview and the step panel read them: those of the steps before
 * its step only (StepScope's, never a later one's nor another branch's), as they are known (the latest run's, a pin's
 * or a step test's); in a foreach, the steps of its item (and of each enclosing item) as their completed run in item 0
 * of the latest run, and unknown without it. Outside every step (an agent's text), what every step rendering it reads.
 */
export function readableOutputs(
  scope: StepScope,
  known: KnownData,
  outputs: Readonly<Record<string, unknown>>,
): ReadableOutputs {
  const before = scope.steps.map((step) => step.name);
  const { context, itemSteps, items } = previewData(scope, known);
  const inItem = new Set(scope.foreach.flatMap((f) => f.steps).concat(itemSteps));
  const readable = Object.fromEntries(
    before.filter((name) => !inItem.has(name) && Object.hasOwn(outputs, name)).map((name) => [name, outputs[name]]),
  );
  const steps = context.steps as Readonly<Record<string, KnownStep>>;
  const completed = itemSteps.filter((name) => steps[name]!.status === "COMPLETED");
  for (const name of completed) readable[name] = steps[name]!.output;
  return { before, outputs: readable, itemSteps: completed, items };
}

/** What completion and the hover read at each place of a workflow's text: its readableOutputs, on what is known. */
export const outputsAt =
  (known: () => KnownData, outputs: () => Readonly<Record<string, unknown>>): OutputsAt =>
  (text, offset) =>
    readableOutputs(expressionScopeAt(text, offset), known(), outputs());
