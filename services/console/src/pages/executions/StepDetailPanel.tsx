import { useState, type ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { ApiError } from "../../api/client";
import type { ArtifactView, StepDetail, ToolCallRecord } from "../../api/types";
import { ActionsHeader } from "../../ui/ActionsHeader";
import { EditedBadge } from "../../ui/EditedBadge";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatDuration, formatTime, prettyJson } from "../../ui/format";
import { Empty, ErrorState, Loading } from "../../ui/states";
import { PinOutputButton } from "../workflows/PinOutputButton";
import { JsonBlock } from "./JsonBlock";
import { PickableOutput } from "./PickableOutput";
import { executionPath, fetchStep, keys } from "./queries";
import { formatTokens, formatUsageCost } from "./usage-format";

type Tab = "output" | "input" | "logs" | "tools" | "artifacts";

/** The selected step in full, from the step route: what it was given, what it made, what it said. */
export function StepDetailPanel({
  executionId,
  path,
  child,
  actions,
  pinTo,
}: {
  executionId: string;
  path: string;
  child?: string;
  actions?: ReactNode;
  /** The workflow a top-level step's output may be pinned to; undefined: no "Pin this output". */
  pinTo?: string;
}) {
  const step = useQuery({
    queryKey: keys.step(executionId, path),
    queryFn: ({ signal }) => fetchStep(executionId, path, signal),
    // A step that has not started is a 404 until it does: the events refetch it then.
    retry: (count, error) => count < 2 && !(error instanceof ApiError && error.status >= 400 && error.status < 500),
  });
  return (
    <section className="card stack step-detail" aria-label={`Step ${path}`}>
      {step.isPending ? (
        <Loading what={`Loading step ${path}`} />
      ) : step.isError ? (
        step.error instanceof ApiError && step.error.status === 404 ? (
          <>
            <h2 className="mono">{path}</h2>
            <Empty title="This step has not started yet">It shows here once it does.</Empty>
          </>
        ) : (
          <ErrorState error={step.error} retry={() => void step.refetch()} />
        )
      ) : (
        <StepBody
          step={step.data}
          child={child}
          actions={actions}
          pin={
            pinTo !== undefined && step.data.status === "COMPLETED" ? (
              <PinOutputButton workflowId={pinTo} step={path} output={step.data.output} from={executionId} />
            ) : null
          }
        />
      )}
    </section>
  );
}

function StepBody({
  step,
  child,
  actions,
  pin,
}: {
  step: StepDetail;
  child: string | undefined;
  actions: ReactNode;
  pin: ReactNode;
}) {
  const [tab, setTab] = useState<Tab>("output");
  const tabs: { id: Tab; label: string }[] = [
    { id: "output", label: "Output" },
    { id: "input", label: "Input" },
    { id: "logs", label: `Logs (${step.logs.length})` },
    { id: "tools", label: `Tool calls (${step.toolCalls.length})` },
    { id: "artifacts", label: `Artifacts (${step.artifacts.length})` },
  ];
  return (
    <>
      <div className="row between">
        <div className="row">
          <h2 className="mono">{step.path}</h2>
          <StatusBadge status={step.status} />
          <span className="muted">{step.type}</span>
          {step.reused ? <span className="badge reused">{step.pinned ? "pinned" : "reused"}</span> : null}
          {step.edited ? <EditedBadge /> : null}
        </div>
        {actions}
      </div>
      {step.edited ? (
        <p className="edited-note" role="note" aria-label="Edited in the debugger">
          Reused as edited in the debugger: in the execution this one reruns, a <code>set</code> at a pause changed what
          this step (or a step in it) gave the steps after it. The rerun went on from that value, not from what the step
          gave.
        </p>
      ) : null}
      <dl className="facts">
        <div>
          <dt>Attempts</dt>
          <dd>{step.attempts}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{formatDuration(step.duration)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatTime(step.startedAt)}</dd>
        </div>
        <div>
          <dt>Ended</dt>
          <dd>{formatTime(step.completedAt)}</dd>
        </div>
        <div>
          <dt>Tokens</dt>
          <dd>{formatTokens(step.usage)}</dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{formatUsageCost(step.usage)}</dd>
        </div>
        {child ? (
          <div>
            <dt>Child execution</dt>
            <dd>
              <Link to={executionPath(child)} className="mono">
                {child}
              </Link>
            </dd>
          </div>
        ) : null}
      </dl>
      {step.error ? (
        <div className="step-error" role="note" aria-label="Error">
          <strong>Error</strong>
          <pre>{step.error}</pre>
        </div>
      ) : null}
      <div className="tabs" role="tablist" aria-label="Step detail">
        {tabs.map((t) => (
          <button key={t.id} type="button" role="tab" aria-selected={tab === t.id} onClick={() => setTab(t.id)}>
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-label={tabs.find((t) => t.id === tab)?.label}>
        {tab === "output" ? (
          <>
            <JsonBlock value={step.output} empty="No output." />
            {step.output !== null && step.output !== undefined ? (
              <PickableOutput step={step.name} value={step.output} />
            ) : null}
            {pin}
          </>
        ) : null}
        {tab === "input" ? (
          <JsonBlock
            value={step.input}
            empty="Not kept: a step's input and logs are kept only when its run is started with monitoring."
          />
        ) : null}
        {tab === "logs" ? (
          step.logs.length === 0 ? (
            <p className="muted">No log lines kept.</p>
          ) : (
            <pre className="logs">{step.logs.join("\n")}</pre>
          )
        ) : null}
        {tab === "tools" ? <ToolCalls calls={step.toolCalls} /> : null}
        {tab === "artifacts" ? <Artifacts artifacts={step.artifacts} /> : null}
      </div>
    </>
  );
}

function ToolCalls({ calls }: { calls: ToolCallRecord[] }) {
  if (calls.length === 0) return <p className="muted">No tool calls (only an agent step makes them).</p>;
  return (
    <div className="table-wrap">
      <table aria-label="Tool calls">
        <thead>
          <tr>
            <th className="num">Turn</th>
            <th>Tool</th>
            <th>Arguments</th>
            <th>Result</th>
            <th className="num">Time</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((c, i) => (
            <tr key={i}>
              <td className="num">{c.turn}</td>
              <td className="mono nowrap">
                {c.server}/{c.tool}
              </td>
              <td>
                <pre>{typeof c.arguments === "string" ? c.arguments : prettyJson(c.arguments)}</pre>
              </td>
              <td>
                {c.isError ? <span className="badge status-failed">error</span> : null}
                <pre>{c.result}</pre>
              </td>
              <td className="num">{formatDuration(c.durationMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function Artifacts({ artifacts }: { artifacts: ArtifactView[] }) {
  if (artifacts.length === 0)
    return <p className="muted">No artifacts: a code step's files in WF_ARTIFACTS_DIR show here.</p>;
  return (
    <div className="table-wrap">
      <table aria-label="Artifacts">
        <thead>
          <tr>
            <th>Name</th>
            <th className="num">Size</th>
            <th>Type</th>
            <ActionsHeader label="Download" />
          </tr>
        </thead>
        <tbody>
          {artifacts.map((a) => (
            <tr key={a.id}>
              <td className="mono">{a.path || a.name}</td>
              <td className="num">{formatBytes(a.size)}</td>
              <td className="muted">{a.contentType}</td>
              <td>
                {/* A signed, short-lived URL: it needs no session, and the step is fetched again (a fresh URL) when the page is. */}
                <a className="button" href={a.downloadUrl} download={a.name} title={`Download ${a.name}`}>
                  Download
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
