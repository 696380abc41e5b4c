import { useMutation, useQuery } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { CostEstimate, ExecutionView, StepTestResponse } from "../../api/types";
import { formatCost, formatNumber } from "../../ui/format";

const ENDED: ReadonlySet<string> = new Set(["COMPLETED", "FAILED", "CANCELLED", "INTERRUPTED"]);

interface Props {
  /** An llm or agent step: its call is priced first, and runs once confirmed. */
  priced: boolean;
  /** Starting the real test. */
  starting: boolean;
  /** Starts a step test with this body added (`estimateOnly`), as the real one would be started. */
  startTest(extra: { estimateOnly: true }): Promise<StepTestResponse>;
  run(): void;
}

/**
 * "Run this step": a model call says first what it will cost (a step test with `estimateOnly`,
 * docs/rerun.md#testing-one-step) and runs only when confirmed; any other step runs at once.
 */
export function CostCheckedRun({ priced, starting, startTest, run }: Props) {
  const estimating = useMutation({ mutationFn: () => startTest({ estimateOnly: true }) });
  const estimateId = estimating.data?.executionId;
  const estimate = useQuery({
    queryKey: ["executions", "step-test-estimate", estimateId],
    queryFn: ({ signal }) => api<ExecutionView>("GET", `/api/console/executions/${estimateId}`, undefined, signal),
    enabled: estimateId !== undefined,
    refetchInterval: (q) => (q.state.data && ENDED.has(q.state.data.status) ? false : 250),
  });
  const view = estimate.data;
  const asking = estimateId !== undefined || estimating.isPending || estimating.isError;
  const confirm = () => {
    estimating.reset();
    run();
  };

  if (!priced || !asking) {
    return (
      <button type="button" onClick={() => (priced ? estimating.mutate() : run())} disabled={starting}>
        {starting ? "Starting…" : "Run this step"}
      </button>
    );
  }
  const ended = view !== undefined && ENDED.has(view.status);
  const failed = estimating.isError || (ended && view.status !== "COMPLETED");
  return (
    <div className="cost-check" role="group" aria-label="Cost of this call">
      {!ended && !failed ? (
        <p className="muted small" role="status">
          Estimating what this call will cost…
        </p>
      ) : failed ? (
        <p className="notice error">
          Could not estimate the cost: {estimating.error?.message ?? view?.error ?? view?.status}. Run it anyway?
        </p>
      ) : (
        <EstimateText estimate={view?.output as CostEstimate} />
      )}
      <div className="row">
        <button type="button" onClick={confirm} disabled={!ended && !failed}>
          Run it
        </button>
        <button type="button" className="ghost" onClick={() => estimating.reset()}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function EstimateText({ estimate: e }: { estimate: CostEstimate }) {
  const basis = e.outputBasis === "last_run" ? "as many as its last run gave" : "a typical answer";
  return (
    <>
      <p>
        This call will cost about <strong>{formatCost(e.costUsd)}</strong>: {formatNumber(e.inputTokens)} input tokens
        and about {formatNumber(e.outputTokens)} output tokens ({basis}) at {e.model} prices. Run it?
      </p>
      {e.price === null ? (
        <p className="muted small">{e.model} has no price in WF_LLM_PRICES: its calls are recorded as costing $0.</p>
      ) : null}
      {e.maxCostUsd === null ? null : (
        <p className="muted small">
          At most {formatCost(e.maxCostUsd)}: its max_tokens allows up to {formatNumber(e.maxOutputTokens)} output
          tokens.
        </p>
      )}
      {e.type === "agent" ? (
        <p className="muted small">
          This is the agent&apos;s first call: each tool round adds a call that sends the conversation again (up to{" "}
          {e.maxCalls} calls).
        </p>
      ) : e.maxCalls > 1 ? (
        <p className="muted small">An answer that misses its output_schema costs one more call to repair.</p>
      ) : null}
    </>
  );
}
