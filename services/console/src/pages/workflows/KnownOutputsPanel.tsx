import { PickableOutput } from "../executions/PickableOutput";

/**
 * In the selected step's panel: the known outputs (the latest run's, a pin, or a step test's) of the
 * steps before it, whose fields go into this step's fields or the YAML when pressed.
 */
export function KnownOutputsPanel({
  outputs,
  before,
}: {
  outputs: Readonly<Record<string, unknown>>;
  /** The steps that run before the selected one, in order (stepsBefore). */
  before: readonly string[];
}) {
  if (before.length === 0) return null;
  const known = before.filter((name) => Object.hasOwn(outputs, name));
  return (
    <section className="known-outputs" aria-label="Outputs of earlier steps">
      <h3>Outputs of earlier steps</h3>
      {known.length === 0 ? (
        <p className="muted small">
          Run the workflow, test a step or pin its data, to map the fields of its output here.
        </p>
      ) : (
        known.map((name) => (
          <details key={name} open={known.length === 1}>
            <summary>{name}</summary>
            <PickableOutput step={name} value={outputs[name]} />
          </details>
        ))
      )}
    </section>
  );
}
