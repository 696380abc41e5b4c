import type { ShownItem } from "../../editor";
import { PickableOutput } from "../executions/PickableOutput";

/** What a step of a foreach item, or `item`, shows it is: the latest run's, in item 0 of each foreach around. */
const ITEM_0 = "item 0 of the latest run";

/**
 * In the selected step's panel: the known outputs (the latest run's, a pin, or a step test's) of the steps before it
 * (in a parallel's branch, its own branch's too, never another's), whose fields go into this step's fields or the YAML
 * when pressed. Inside a foreach, the steps before it in its item (and in each enclosing item) are their run in item 0
 * of the latest run, and so is `item`.
 */
export function KnownOutputsPanel({
  outputs,
  before,
  itemSteps = [],
  item = null,
}: {
  outputs: Readonly<Record<string, unknown>>;
  /** The steps the selected one reads, in order (readableOutputs' `before`): in a branch, its own earlier ones too. */
  before: readonly string[];
  /** The steps of `outputs` whose output is their run in item 0 of a foreach holding the selected step. */
  itemSteps?: readonly string[];
  /**
   * The selected step's `item`, as item 0 of the latest run had it, and why it may not be that one, as the preview says
   * it; null when not known or outside a foreach.
   */
  item?: ShownItem | null;
}) {
  if (before.length === 0 && itemSteps.length === 0 && item === null) return null;
  // An item's own run of a name stands over a top-level step's, as in the run: listed once, after the top level's.
  const known = [...before.filter((name) => !itemSteps.includes(name)), ...itemSteps].filter((name) =>
    Object.hasOwn(outputs, name),
  );
  const shown = known.length + (item === null ? 0 : 1);
  return (
    <section className="known-outputs" aria-label="Outputs of earlier steps">
      <h3>Outputs of earlier steps</h3>
      {shown === 0 ? (
        <p className="muted small">
          Run the workflow, test a step or pin its data, to map the fields of its output here.
        </p>
      ) : (
        <>
          {item === null ? null : (
            <details open={shown === 1}>
              <summary>
                item <span className="muted small">({ITEM_0})</span>
              </summary>
              {item.mayDiffer === undefined ? null : <p className="small item-may-differ">{item.mayDiffer}</p>}
              <PickableOutput step={null} value={item.value} />
            </details>
          )}
          {known.map((name) => (
            <details key={name} open={shown === 1}>
              <summary>
                {name}
                {itemSteps.includes(name) ? <span className="muted small"> ({ITEM_0})</span> : null}
              </summary>
              <PickableOutput step={name} value={outputs[name]} />
            </details>
          ))}
        </>
      )}
    </section>
  );
}
