import { Fragment, useState } from "react";
import type { StepView } from "../../api/types";
import { EditedBadge } from "../../ui/EditedBadge";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatDuration } from "../../ui/format";
import { DiffView } from "../workflows/DiffView";
import type { CompareRow } from "./compare-runs";
import { formatTokens, formatUsageCost } from "./usage-format";

const COLUMNS = 10;

function Status({ step, run }: { step: StepView | null; run: "A" | "B" }) {
  if (step === null) return <span className="not-run">not run in {run}</span>;
  return (
    <span className="compare-status">
      <StatusBadge status={step.status} />
      {step.edited ? <EditedBadge /> : null}
    </span>
  );
}

function change(ms: number | null): string {
  if (ms === null) return "—";
  if (ms === 0) return "±0";
  return `${ms > 0 ? "+" : "−"}${formatDuration(Math.abs(ms))}`;
}

function pair(a: string, b: string): string {
  return a === b ? a : `${a} → ${b}`;
}

function outputSummary(row: CompareRow): string {
  if (row.a === null && row.b === null) return "—";
  if (!row.outputDiffers) return "same";
  const removed = row.output.filter((l) => l.op === "remove").length;
  const added = row.output.filter((l) => l.op === "add").length;
  return `−${removed} +${added} lines`;
}

/**
 * One step path: A's and B's status, duration, attempts, usage, and below it, when they differ,
 * the two errors and the output's line diff (shown at first, hidden on request).
 */
export function CompareStepRow({
  row,
  fold,
  holdsDifferences,
}: {
  row: CompareRow;
  fold: { rows: number; differ: number; open: boolean; toggle: () => void } | undefined;
  holdsDifferences: boolean;
}) {
  const errors = [row.a?.error, row.b?.error].some((e) => e != null) && row.a?.error !== row.b?.error;
  const hasDetail = row.outputDiffers || errors;
  const [detailOpen, setDetailOpen] = useState(true);
  const detailId = `compare-detail-${row.path}`;
  const attempts = (s: StepView | null) => (s === null ? "—" : String(s.attempts));

  return (
    <Fragment>
      <tr
        className={row.differs ? "differs" : holdsDifferences ? "holds-differences" : undefined}
        data-step-path={row.path}
      >
        <th scope="row" style={{ paddingLeft: `${8 + row.depth * 18}px` }}>
          <span className="mono">{row.path}</span>
          {row.differs ? <span className="differs-mark">differs</span> : null}
          {fold ? (
            <button type="button" className="link-button small" aria-expanded={fold.open} onClick={fold.toggle}>
              {fold.open ? "Fold" : "Show"} {fold.rows} nested steps
              {fold.differ > 0 ? ` (${fold.differ} differ)` : ""}
            </button>
          ) : null}
        </th>
        <td>
          <Status step={row.a} run="A" />
        </td>
        <td>
          <Status step={row.b} run="B" />
        </td>
        <td className="num">{formatDuration(row.a?.duration)}</td>
        <td className="num">{formatDuration(row.b?.duration)}</td>
        <td className="num">{change(row.durationDelta)}</td>
        <td className="num">{pair(attempts(row.a), attempts(row.b))}</td>
        <td className="num">{pair(formatTokens(row.a?.usage), formatTokens(row.b?.usage))}</td>
        <td className="num">{pair(formatUsageCost(row.a?.usage), formatUsageCost(row.b?.usage))}</td>
        <td>
          {hasDetail ? (
            <button
              type="button"
              className="link-button small"
              aria-expanded={detailOpen}
              aria-controls={detailId}
              onClick={() => setDetailOpen((o) => !o)}
            >
              {outputSummary(row)}
              {errors ? ", errors" : ""}
            </button>
          ) : (
            <span className="muted">{outputSummary(row)}</span>
          )}
        </td>
      </tr>
      {hasDetail && detailOpen ? (
        <tr className="compare-detail" id={detailId}>
          <td colSpan={COLUMNS}>
            {errors ? (
              <div className="compare-errors">
                {(["A", "B"] as const).map((run) => {
                  const error = (run === "A" ? row.a : row.b)?.error;
                  return error ? (
                    <div key={run} className="step-error" role="note" aria-label={`Error in ${run}`}>
                      <strong>Error in {run}</strong>
                      <pre>{error}</pre>
                    </div>
                  ) : null;
                })}
              </div>
            ) : null}
            {row.outputDiffers ? <DiffView lines={row.output} label={`Output of ${row.path}, A to B`} /> : null}
          </td>
        </tr>
      ) : null}
    </Fragment>
  );
}
