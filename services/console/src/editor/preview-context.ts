import type { ExpressionScope } from "./expression-scope";

/** A step's result as an expression reads it: `steps.<name>`. */
export interface KnownStep {
  output: unknown;
  status: string;
  duration: number | null;
  error: string | null;
}

/** A foreach's items as the latest finished run had them: a preview reads `item` inside it as their first. */
export interface KnownItems {
  /** Its `items` as that run's definition wrote them: a list, or a template the preview renders as the run did. */
  items: unknown;
  /** What that run rendered them on: its results of the steps before the foreach, its variables and `execution`. */
  context: Record<string, unknown>;
}

/** What the editor knows of a run of its workflow, to preview expressions on (docs/console.md#the-build-loop). */
export interface KnownData {
  /** Top-level steps by name: the latest finished run's results, over which the pins, then this editor's step tests. */
  steps: Readonly<Record<string, KnownStep>>;
  /** The latest finished run's variables; null without one. */
  vars: Readonly<Record<string, unknown>> | null;
  /** The latest finished run's `execution` fields; null without one. */
  execution: Readonly<Record<string, unknown>> | null;
  /** By name, the top-level foreach steps whose first item the latest finished run ran. */
  foreach: Readonly<Record<string, KnownItems>>;
}

export const NOTHING_KNOWN: KnownData = { steps: {}, vars: null, execution: null, foreach: {} };

/**
 * The context an expression in `scope` is previewed on: the known results of the steps that run before it, and the
 * variables and `execution` when a run is known. A name left out is unknown; `secrets` is never in it.
 */
export function previewContext(scope: ExpressionScope, known: KnownData): Record<string, unknown> {
  const steps: Record<string, KnownStep> = {};
  for (const { name } of scope.steps) if (Object.hasOwn(known.steps, name)) steps[name] = known.steps[name]!;
  return {
    steps,
    ...(known.vars === null ? {} : { vars: known.vars }),
    ...(known.execution === null ? {} : { execution: known.execution }),
  };
}

/** The items whose first is `item` for an expression in `scope`: null outside a foreach, or with no run of it known. */
export function previewItems(scope: ExpressionScope, known: KnownData): KnownItems | null {
  return scope.foreach !== null && Object.hasOwn(known.foreach, scope.foreach) ? known.foreach[scope.foreach]! : null;
}
