import { useMutation, useQueryClient } from "@tanstack/react-query";
import { pinOutput, workflowKeys } from "./queries";

interface Props {
  workflowId: string;
  step: string;
  output: unknown;
  /** The execution the output comes from. */
  from: string;
}

/** Pins a run's output of a top-level step to its workflow, for step tests of the steps after it. */
export function PinOutputButton({ workflowId, step, output, from }: Props) {
  const client = useQueryClient();
  const pin = useMutation({
    mutationFn: () => pinOutput(workflowId, step, output ?? null, from),
    onSuccess: () => client.invalidateQueries({ queryKey: workflowKeys.detail(workflowId) }),
  });
  return (
    <div className="row pin-output">
      <button
        type="button"
        onClick={() => pin.mutate()}
        disabled={pin.isPending}
        title={`Tests of the steps after ${step} take this output instead of running it`}
      >
        {pin.isPending ? "Pinning…" : "Pin this output"}
      </button>
      <span role="status" className="muted small">
        {pin.isSuccess ? `Pinned to ${step}.` : ""}
      </span>
      {pin.isError ? (
        <span className="notice error" role="alert">
          Not pinned: {pin.error.message}
        </span>
      ) : null}
    </div>
  );
}
