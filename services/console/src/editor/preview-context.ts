import type { ExpressionScope } from "./expression-scope";

/** A step's result as an expression reads it: `steps.<name>`. */
export interface KnownStep {
  output: unknown;
  status: string;
  duration: number | null;
  error: string | null;
}

/** What the editor knows of a run of its workflow, to preview expressions on (docs/console.md#the-build-loop). */
export interface KnownData {
  /** Top-level steps by name: the latest finished run's results, over which the pins, then this editor's step tests. */
  steps: Readonly<Record<string, KnownStep>>;
  /** The latest finished run's variables; null without one. */
  vars: Readonly<Record<string, unknown>> | null;
  /** The latest finished run's `execution` fields; null without one. */
  execution: Readonly<Record<string, unknown>> | null;
}

export const NOTHING_KNOWN: KnownData = { steps: {}, vars: null, execution: null };

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
