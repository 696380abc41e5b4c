import { useSearchParams } from "react-router";
import type { UsageView } from "../../api/types";
import { formatCost, formatNumber, formatTime } from "../../ui/format";
import { Empty, ErrorState, Loading } from "../../ui/states";
import { ActiveDays } from "./ActiveDays";
import { DayBars } from "./DayBars";
import { KeyMeters } from "./KeyMeters";
import { useUsage, windowOf, WINDOWS } from "./queries";
import { StatusBars } from "./StatusBars";
import { WorkflowTable } from "./WorkflowTable";
import "./usage.css";

export default function UsagePage() {
  const [params, setParams] = useSearchParams();
  const days = windowOf(params.get("days"));
  const usage = useUsage(days);
  const choose = (d: number) => setParams({ days: String(d) });

  return (
    <>
      <div className="page-head">
        <h1>Usage</h1>
        {usage.data ? <span className="badge">{usage.data.plan} plan</span> : null}
        <div className="spacer" />
        <div className="usage-windows" role="group" aria-label="Window">
          {WINDOWS.map((d) => (
            <button
              key={d}
              type="button"
              aria-pressed={d === days}
              className={d === days ? "primary" : undefined}
              onClick={() => choose(d)}
            >
              {d} days
            </button>
          ))}
        </div>
      </div>
      {usage.isPending ? (
        <Loading what="Adding up your usage" />
      ) : usage.isError ? (
        <ErrorState error={usage.error} retry={() => void usage.refetch()} />
      ) : (
        <div className={usage.isPlaceholderData ? "stack usage-stale" : "stack"} aria-busy={usage.isPlaceholderData}>
          <Report report={usage.data} />
        </div>
      )}
    </>
  );
}

function Report({ report }: { report: UsageView }) {
  const requests = report.keys.reduce((sum, k) => sum + k.minute.count + k.day.count, 0);
  if (report.executionsRead === 0 && requests === 0) {
    return (
      <div className="card">
        <Empty title={`Nothing in the last ${report.days} days`}>
          Runs of your workflows and requests with your API keys will show here.
        </Empty>
      </div>
    );
  }
  return (
    <>
      <p className="muted small usage-window">
        {formatTime(report.from)} to {formatTime(report.to)}; days are UTC dates.
        {report.truncated
          ? ` More executions ran than one report reads: the sums cover the newest ${formatNumber(report.executionsRead)}.`
          : ""}
      </p>
      <dl className="usage-totals">
        <div className="card">
          <dt>Executions</dt>
          <dd>{formatNumber(report.executionsRead)}</dd>
        </div>
        <div className="card">
          <dt>Tokens in</dt>
          <dd>{formatNumber(report.total.promptTokens)}</dd>
        </div>
        <div className="card">
          <dt>Tokens out</dt>
          <dd>{formatNumber(report.total.completionTokens)}</dd>
        </div>
        <div className="card">
          <dt>Cost</dt>
          <dd>{formatCost(report.total.costUsd)}</dd>
        </div>
      </dl>
      {report.stepTests.executions > 0 ? (
        <p className="muted small">
          Of these, {formatNumber(report.stepTests.executions)} step tests ({formatCost(report.stepTests.costUsd)},{" "}
          {formatNumber(report.stepTests.totalTokens)} tokens).
        </p>
      ) : null}
      {report.executionsRead === 0 ? (
        <div className="card">
          <Empty title="No executions in this window">Only API key requests happened; they are counted below.</Empty>
        </div>
      ) : (
        <>
          <div className="grid-2">
            <DayBars
              title="Tokens by day"
              days={report.byDay}
              format="number"
              series={[
                { label: "in", tone: "usage-in", value: (d) => d.promptTokens },
                { label: "out", tone: "usage-out", value: (d) => d.completionTokens },
              ]}
            />
            <DayBars
              title="Cost by day"
              days={report.byDay}
              format="cost"
              series={[{ label: "USD", tone: "usage-cost", value: (d) => d.costUsd }]}
            />
          </div>
          <div className="usage-split">
            <WorkflowTable workflows={report.byWorkflow} />
            <StatusBars byStatus={report.byStatus} />
          </div>
          <ActiveDays days={report.byDay} />
        </>
      )}
      <KeyMeters keys={report.keys} plan={report.plan} />
    </>
  );
}
