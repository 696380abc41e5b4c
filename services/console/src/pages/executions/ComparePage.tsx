import { useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router";
import type { ExecutionView } from "../../api/types";
import { Empty, ErrorState, Loading } from "../../ui/states";
import { CompareHeads } from "./CompareHeads";
import { CompareStepsTable } from "./CompareStepsTable";
import { compareProblem, compareRows } from "./compare-runs";
import { comparePath, fetchExecution, keys } from "./queries";
import "./executions.css";
import "./compare.css";

/** One run of the two, as the execution page reads it (and under its key: one opened there is at hand). */
function useRun(id: string) {
  return useQuery({
    queryKey: keys.execution(id),
    queryFn: ({ signal }) => fetchExecution(id, signal),
    enabled: id !== "",
  });
}

/** Two runs of one workflow side by side (`?a=<id>&b=<id>`): their heads, then step by step. */
export default function ComparePage() {
  const [params] = useSearchParams();
  const a = params.get("a") ?? "";
  const b = params.get("b") ?? "";
  const runA = useRun(a);
  const runB = useRun(b);

  if (a === "" || b === "")
    return (
      <Empty title="Choose two runs to compare">
        <p className="compare-hint">
          Open an execution and use “Compare with…”, or tick two rows in <Link to="/executions">Executions</Link>.
        </p>
      </Empty>
    );
  const failed = runA.isError ? runA : runB.isError ? runB : null;
  if (failed) return <ErrorState error={failed.error} retry={() => void failed.refetch()} />;
  if (!runA.data || !runB.data) return <Loading what="Loading the two runs" />;
  return <ComparedRuns a={runA.data} b={runB.data} />;
}

function ComparedRuns({ a, b }: { a: ExecutionView; b: ExecutionView }) {
  const problem = compareProblem(a, b);
  const rows = useMemo(() => compareRows(a, b), [a, b]);
  const [onlyDifferences, setOnlyDifferences] = useState(false);

  return (
    <div className="stack compare-page">
      <div className="page-head">
        <h1>Compare runs</h1>
        <div className="spacer" />
        <Link className="button" to={comparePath(b.id, a.id)} title="Show B's run on the left">
          Swap A and B
        </Link>
      </div>
      {problem ? (
        <div className="state error" role="alert">
          <strong>These runs cannot be compared</strong>
          <div className="muted">{problem}</div>
        </div>
      ) : null}
      <CompareHeads a={a} b={b} />
      {problem ? null : (
        <>
          {a.workflowVersion !== b.workflowVersion ? (
            <p className="compare-note" role="note">
              The runs ran different versions of the workflow: A ran {versionName(a)}, B ran {versionName(b)}.{" "}
              <Link to={`/workflows/${encodeURIComponent(a.workflowId)}/versions`}>
                See what changed between versions
              </Link>
            </p>
          ) : null}
          <CompareStepsTable rows={rows} onlyDifferences={onlyDifferences} onOnlyDifferences={setOnlyDifferences} />
        </>
      )}
    </div>
  );
}

function versionName(v: ExecutionView): string {
  return v.workflowVersion === null ? "an unrecorded version" : `v${v.workflowVersion}`;
}
