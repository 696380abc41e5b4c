import { formatCost, formatNumber } from "../../ui/format";
import type { RerunSaving } from "./rerun-saving";

/**
 * On a rerun's page: the steps it took over from the execution it reruns, and the tokens and cost they did not spend
 * again.
 */
export function RerunSavingNote({ saving }: { saving: RerunSaving }) {
  const { saved, reused } = saving;
  return (
    <div className="saving rerun-saving" role="note" aria-label="Saving">
      <span aria-hidden="true">↺ </span>
      {reused.length === 0 ? (
        <>No step was reused: every step ran again.</>
      ) : (
        <>
          Reused {reused.length === 1 ? "1 step" : `${reused.length} steps`} (
          <Steps names={reused} />)
          {saving.fromStep ? (
            <>
              {" "}
              and ran from <code>{saving.fromStep}</code>
            </>
          ) : null}
          :{" "}
          {saved.totalTokens > 0 || saved.costUsd > 0 ? (
            <>
              saved <strong>{formatNumber(saved.totalTokens)} tokens</strong> and{" "}
              <strong>{formatCost(saved.costUsd)}</strong>.
            </>
          ) : (
            <>no tokens or cost saved (the reused steps made no LLM calls).</>
          )}
          {saving.edited.length > 0 ? (
            <>
              {" "}
              <Steps names={saving.edited} /> {saving.edited.length === 1 ? "was" : "were"} reused as edited in the
              debugger.
            </>
          ) : null}
        </>
      )}
    </div>
  );
}

function Steps({ names }: { names: string[] }) {
  return names.map((s, i) => (
    <span key={s}>
      {i > 0 ? ", " : null}
      <code>{s}</code>
    </span>
  ));
}
