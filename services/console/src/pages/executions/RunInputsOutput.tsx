import type { ExecutionView } from "../../api/types";
import { hasEnded } from "./execution-status";
import { JsonBlock } from "./JsonBlock";

/** What the run was given (its variables, defaults applied) and what it made (its output, once it completes). */
export function RunInputsOutput({ view }: { view: ExecutionView }) {
  return (
    <div className="grid-2 run-io">
      <section className="card stack" aria-labelledby="run-inputs-title">
        <h2 id="run-inputs-title">Inputs</h2>
        {Object.keys(view.variables).length === 0 ? (
          <p className="muted">None: the workflow declares no variables.</p>
        ) : (
          <JsonBlock value={view.variables} empty="" label="The execution's variables" />
        )}
      </section>
      <section className="card stack" aria-labelledby="run-output-title">
        <h2 id="run-output-title">Output</h2>
        {view.status === "COMPLETED" ? (
          <JsonBlock value={view.output} empty="None: its last step gave no output." label="The execution's output" />
        ) : hasEnded(view.status) ? (
          <p className="muted">None: the run ended {view.status.toLowerCase()} before it completed.</p>
        ) : (
          <p className="muted">Shows here once the run completes.</p>
        )}
      </section>
    </div>
  );
}
