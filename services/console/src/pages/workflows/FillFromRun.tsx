import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { formatTime } from "../../ui/format";
import { FormError } from "../../ui/states";
import { fetchExecution, useRunsOf } from "../executions/queries";

/** How many of the workflow's newest runs the choice offers. */
const OFFERED = 20;

/**
 * "Fill from a run": the run form takes the variables one of the workflow's recent runs ran with (a webhook's payload
 * mapped into them, say), to try an edited workflow on the same data again. Offered once the workflow has runs.
 */
export function FillFromRun({
  workflowId,
  onFill,
}: {
  workflowId: string;
  /** The chosen run's variables; answers what the form could not take (variables this version no longer has). */
  onFill(variables: Record<string, unknown>): string[];
}) {
  const runs = useRunsOf(workflowId);
  const [chosen, setChosen] = useState("");
  const [said, setSaid] = useState("");
  const fill = useMutation({
    mutationFn: (id: string) => fetchExecution(id),
    onSuccess: (view) => {
      const undeclared = onFill(view.variables);
      setSaid(
        `Filled from the run of ${formatTime(view.createdAt)}.` +
          (undeclared.length === 0 ? "" : ` Not variables of this version, left out: ${undeclared.join(", ")}.`),
      );
    },
    onMutate: () => setSaid(""),
  });
  const offered = (runs.data?.items ?? []).slice(0, OFFERED);
  if (offered.length === 0) return null;

  return (
    <div className="fill-from-run">
      <label className="inline">
        <span>Fill from a run</span>
        <select
          value={chosen}
          disabled={fill.isPending}
          onChange={(e) => {
            setChosen(e.target.value);
            if (e.target.value !== "") fill.mutate(e.target.value);
          }}
        >
          <option value="">{fill.isPending ? "Reading the run…" : "— choose a run —"}</option>
          {offered.map((e) => (
            <option key={e.id} value={e.id}>
              {formatTime(e.createdAt)} · {e.triggerSource.replace("_", " ")} · {e.status.toLowerCase()}
            </option>
          ))}
        </select>
      </label>
      <p className="field-hint" role="status">
        {said}
      </p>
      <FormError error={fill.error} />
    </div>
  );
}
