import { useMemo, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link, useLocation, useParams } from "react-router";
import type { ExecutionView, RerunResponse } from "../../api/types";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatDuration, formatNumber, formatTime } from "../../ui/format";
import { ErrorState, Loading } from "../../ui/states";
import { ApprovalWaits } from "./ApprovalWaits";
import { CancelExecution } from "./CancelExecution";
import { CompareWith } from "./CompareWith";
import { EventsPanel } from "./EventsPanel";
import { executionDuration, hasEnded } from "./execution-status";
import { LiveIndicator } from "../../ui/LiveIndicator";
import { PauseBanner } from "./PauseBanner";
import { waitingTurns } from "./waiting-turns";
import { executionPath, fetchExecution, keys } from "./queries";
import { RerunDialog } from "./RerunDialog";
import { RunInputsOutput } from "./RunInputsOutput";
import { StepDetailPanel } from "./StepDetailPanel";
import { debugErrorWords } from "./debug-commands";
import { RunSteps } from "./RunSteps";
import { rerunSaving } from "./rerun-saving";
import { RerunSavingNote } from "./RerunSavingNote";
import { buildStepTree, topLevelSteps } from "./step-tree";
import { useBreakpointMarks, useBreakpointsUpdate } from "./useBreakpoints";
import { formatUsageCost, hasUsage } from "./usage-format";
import { useFollowExecution } from "./useFollowExecution";
import { useNow } from "./useNow";
import "./executions.css";

/**
 * One execution: its state, the version that ran, its inputs and output, the approval it waits
 * on, its steps live as they run, a step in full, its events; cancel, rerun, debug.
 */
export default function ExecutionPage() {
  const id = useParams().id ?? "";
  const execution = useQuery({ queryKey: keys.execution(id), queryFn: ({ signal }) => fetchExecution(id, signal) });
  const followed = useFollowExecution(id);

  if (execution.isPending) return <Loading what="Loading the execution" />;
  if (execution.isError) return <ErrorState error={execution.error} retry={() => void execution.refetch()} />;
  return <ExecutionDetail key={id} view={execution.data} followed={followed} />;
}

function workflowName(view: ExecutionView): string {
  const def = view.definition;
  return typeof def === "object" && def !== null && "name" in def && typeof def.name === "string"
    ? def.name
    : view.workflowId;
}

function ExecutionDetail({ view, followed }: { view: ExecutionView; followed: ReturnType<typeof useFollowExecution> }) {
  const ended = hasEnded(view.status);
  const now = useNow(1_000, !ended);
  const tree = useMemo(() => buildStepTree(view.definition, view.steps), [view.definition, view.steps]);
  const [selected, setSelected] = useState<string | null>(null);
  const [rerunFrom, setRerunFrom] = useState<string | null>(null);
  const started = (useLocation().state as { rerun?: RerunResponse } | null)?.rerun ?? null;
  const saving = useMemo(() => rerunSaving(view, topLevelSteps(tree), started), [view, tree, started]);
  const put = useBreakpointsUpdate(view.id);
  const { marks, onGutterClick } = useBreakpointMarks(view, put);

  const rerunButton = (path: string) => (
    <button
      type="button"
      className="small-button"
      onClick={() => setRerunFrom(path)}
      title={`Run this execution again from ${path}, reusing the steps before it`}
    >
      Rerun from this step
    </button>
  );

  return (
    <div className="stack execution-page">
      <div className="page-head">
        <h1>
          Execution <span className="mono">{view.id}</span>
        </h1>
        <StatusBadge status={view.status} />
        <LiveIndicator state={followed.stream} endedLabel="Ended" />
        <div className="spacer" />
        {ended ? <CompareWith view={view} /> : null}
        {view.debug ? (
          <Link className="button" to={`${executionPath(view.id)}/debug`}>
            Debugger
          </Link>
        ) : null}
        {!ended ? <CancelExecution executionId={view.id} /> : null}
      </div>

      {view.pause ? <PauseBanner executionId={view.id} pause={view.pause} waiting={waitingTurns(view).length} /> : null}
      <ApprovalWaits view={view} />

      <section className="card" aria-label="Summary">
        <dl className="facts">
          <div>
            <dt>Workflow</dt>
            <dd>
              <Link to={`/workflows/${encodeURIComponent(view.workflowId)}`}>{workflowName(view)}</Link>
            </dd>
          </div>
          <div>
            <dt>Version</dt>
            <dd>
              {view.workflowVersion === null ? (
                "—"
              ) : (
                <Link
                  to={`/workflows/${encodeURIComponent(view.workflowId)}/versions`}
                  title="The version of the workflow this execution ran"
                >
                  v{view.workflowVersion}
                </Link>
              )}
            </dd>
          </div>
          <div>
            <dt>Trigger</dt>
            <dd>{view.triggerSource.replace("_", " ")}</dd>
          </div>
          <div>
            <dt>Requested</dt>
            <dd>{formatTime(view.createdAt)}</dd>
          </div>
          <div>
            <dt>Started</dt>
            <dd>{formatTime(view.startAt)}</dd>
          </div>
          <div>
            <dt>Ended</dt>
            <dd>{formatTime(view.completeAt)}</dd>
          </div>
          <div>
            <dt>Duration</dt>
            <dd>{formatDuration(executionDuration(view, now))}</dd>
          </div>
          <div>
            <dt>Steps</dt>
            <dd>
              {view.completedSteps}/{view.totalSteps} completed
            </dd>
          </div>
          <div>
            <dt>Tokens</dt>
            <dd>
              {hasUsage(view.usage)
                ? `${formatNumber(view.usage.totalTokens)} (${formatNumber(view.usage.promptTokens)} prompt, ${formatNumber(view.usage.completionTokens)} completion)`
                : "—"}
            </dd>
          </div>
          <div>
            <dt>Cost</dt>
            <dd>{formatUsageCost(view.usage)}</dd>
          </div>
          {view.rerunOf ? (
            <div>
              <dt>Rerun of</dt>
              <dd>
                <Link to={executionPath(view.rerunOf)} className="mono">
                  {view.rerunOf}
                </Link>
              </dd>
            </div>
          ) : null}
        </dl>
        {saving ? <RerunSavingNote saving={saving} /> : null}
        {view.error ? (
          <div className="step-error" role="note" aria-label="Execution error">
            <strong>Error</strong>
            <pre>{view.error}</pre>
          </div>
        ) : null}
      </section>

      <RunInputsOutput view={view} />

      {put.error ? (
        <div className="form-error" role="alert">
          {debugErrorWords(put.error)}
        </div>
      ) : null}
      <div className="detail-columns">
        <RunSteps
          view={view}
          tree={tree}
          now={now}
          selected={selected}
          onSelect={setSelected}
          marks={marks}
          onGutterClick={onGutterClick}
          actions={ended ? (path, topLevel) => (topLevel ? rerunButton(path) : null) : undefined}
        />
        {selected !== null ? (
          <StepDetailPanel
            executionId={view.id}
            path={selected}
            child={followed.children.get(selected)}
            pinTo={
              tree.some((n) => n.kind === "step" && n.topLevel && n.path === selected) ? view.workflowId : undefined
            }
            actions={
              ended && tree.some((n) => n.kind === "step" && n.topLevel && n.path === selected)
                ? rerunButton(selected)
                : null
            }
          />
        ) : (
          <section className="card step-detail placeholder">
            <p className="muted">Select a step to see its input, output, logs, error, tool calls and artifacts.</p>
          </section>
        )}
      </div>

      <EventsPanel events={followed.events} stream={followed.stream} />
      <RerunDialog execution={view} fromStep={rerunFrom} onClose={() => setRerunFrom(null)} />
    </div>
  );
}
