import { useEffect, useId, useState } from "react";
import { Link } from "react-router";
import { useMutation, useQuery } from "@tanstack/react-query";
import { api, query } from "../../api/client";
import type { ExecutionList, ExecutionView, StepTestResponse } from "../../api/types";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatAgo, formatDuration } from "../../ui/format";
import { JsonBlock } from "../executions/JsonBlock";
import { formatTokens, formatUsageCost, hasUsage } from "../executions/usage-format";
import { PickableOutput } from "../executions/PickableOutput";
import { CostCheckedRun } from "./CostCheckedRun";
import { ItemChoice } from "./ItemChoice";
import { PinOutputButton } from "./PinOutputButton";
import { StepTestDetails } from "./StepTestDetails";

const ENDED: ReadonlySet<string> = new Set(["COMPLETED", "FAILED", "CANCELLED", "INTERRUPTED"]);
const NO_CONTEXT = "";
/** A step test is mostly short, and someone waits on it: its output shows within this of its end. */
const POLL_MS = 100;

interface Props {
  /** Null for a workflow not saved yet. */
  workflowId: string | null;
  /** Undefined for a step without a valid name. */
  step: string | undefined;
  /** The foreach steps holding it, outermost first: the test runs it in one item of each. */
  foreaches: readonly string[];
  /** Only a top-level step's output can be pinned. */
  topLevel: boolean;
  /** An llm or agent step: what its call costs is shown first (CostCheckedRun). */
  priced: boolean;
  /** The steps it reads (`steps.<name>` in its fields): a test that gives one no output says so. */
  reads: readonly string[];
  /** The editor's text now: the test runs it, saved or not. */
  text(): string;
  /** A test completed with this output (the editor then knows it, for mapping and completion). */
  onOutput?(step: string, output: unknown): void;
}

/** The panel that runs a step of a saved workflow alone; elsewhere, why it cannot. */
export function StepTestPanel({ workflowId, step, ...rest }: Props) {
  if (workflowId !== null && step !== undefined) return <StepTest workflowId={workflowId} step={step} {...rest} />;
  const why =
    workflowId === null
      ? "Save the workflow once to run its steps alone."
      : "Give the step a valid name to run it alone.";
  return (
    <section className="step-test" aria-label="Test this step">
      <h3>Test this step</h3>
      <p className="muted small">{why}</p>
    </section>
  );
}

/**
 * Runs the selected step alone on the editor's text, with the steps before it as an earlier run
 * recorded them (docs/rerun.md#testing-one-step), and shows what it gave. A step inside a foreach
 * runs in the item chosen of each foreach holding it.
 */
function StepTest({
  workflowId,
  step,
  foreaches,
  topLevel,
  priced,
  reads,
  text,
  onOutput,
}: Omit<Props, "workflowId" | "step"> & { workflowId: string; step: string }) {
  const runs = useQuery({
    queryKey: ["executions", "of-workflow", workflowId],
    queryFn: ({ signal }) =>
      api<ExecutionList>("GET", `/api/console/executions${query({ workflowId, limit: 10 })}`, undefined, signal),
    select: (list) => list.items.filter((e) => ENDED.has(e.status)),
  });
  const [chosen, setChosen] = useState<string | null>(null);
  const contextId = useId();
  const context = chosen ?? runs.data?.[0]?.id ?? NO_CONTEXT;
  const [items, setItems] = useState<number[]>(() => foreaches.map(() => 0));
  const post = (extra: { estimateOnly?: true } = {}) =>
    api<StepTestResponse>("POST", `/api/console/workflows/${encodeURIComponent(workflowId)}/step-tests`, {
      step,
      yaml: text(),
      ...(context === NO_CONTEXT ? {} : { fromExecution: context }),
      ...(foreaches.length === 0 ? {} : { itemIndexes: items }),
      ...extra,
    });
  const start = useMutation({ mutationFn: () => post() });
  const testId = start.data?.executionId;
  const test = useQuery({
    queryKey: ["executions", "step-test", testId],
    queryFn: ({ signal }) => api<ExecutionView>("GET", `/api/console/executions/${testId}`, undefined, signal),
    enabled: testId !== undefined,
    refetchInterval: (q) => (q.state.data && ENDED.has(q.state.data.status) ? false : POLL_MS),
  });
  const result = test.data;
  const path = start.data?.path;
  const ran = path === undefined ? undefined : result?.steps[path];
  const ended = result !== undefined && ENDED.has(result.status);
  const completed = ended && ran?.status === "COMPLETED";
  // A step the test neither took from the run nor from a pin gave it no output, which a test of the step alone does
  // not run: what read it got nothing, and failed or gave what it gives on nothing.
  const given = new Set([
    ...(start.data?.reusedSteps ?? []).map((path) => path.slice(path.lastIndexOf(".") + 1)),
    ...(start.data?.pinnedSteps ?? []),
  ]);
  const unread = ended ? [...new Set(reads)].filter((name) => name !== step && !given.has(name)) : [];
  useEffect(() => {
    // Another item's output is no output of the step's to map from.
    if (completed && path === step) onOutput?.(step, ran.output);
    // Once per test: a refetch of the same ended test is the same output.
  }, [completed, testId]);

  return (
    <section className="step-test" aria-label="Test this step">
      <h3>Test this step</h3>
      <label htmlFor={contextId}>Earlier outputs from</label>
      <select id={contextId} value={context} onChange={(e) => setChosen(e.target.value)}>
        {(runs.data ?? []).map((e) => (
          <option key={e.id} value={e.id}>
            {e.id} · {e.status.toLowerCase()} · {formatAgo(e.createdAt)}
          </option>
        ))}
        <option value={NO_CONTEXT}>No run: variables and pins</option>
      </select>
      {foreaches.map((name, i) => (
        <ItemChoice
          key={name}
          foreach={name}
          value={items[i] ?? 0}
          onChange={(n) => setItems((was) => was.map((v, j) => (j === i ? n : v)))}
        />
      ))}
      <CostCheckedRun priced={priced} starting={start.isPending} startTest={post} run={() => start.mutate()} />
      {start.isError ? (
        <p className="notice error" role="alert">
          Not started: {start.error.message}
        </p>
      ) : null}
      {testId === undefined ? null : (
        <div className="step-test-result" role="status" aria-label="Step test result">
          <div className="row">
            <StatusBadge status={ran?.status ?? result?.status ?? "PENDING"} />
            <span className="muted">{formatDuration(ran?.duration)}</span>
            {hasUsage(ran?.usage) ? (
              <span className="muted">
                cost {formatUsageCost(ran.usage)} · {formatTokens(ran.usage)} tokens
              </span>
            ) : null}
            {/* A tab of its own: the editor keeps its unsaved text. */}
            <Link to={`/executions/${encodeURIComponent(testId)}`} target="_blank" rel="noopener">
              Open the test run
            </Link>
          </div>
          {start.data?.pinnedSteps.length ? (
            <p className="muted small">Took the pinned output of {start.data.pinnedSteps.join(", ")}.</p>
          ) : null}
          {unread.length > 0 ? (
            <p className="small">
              This test had no output of {unread.join(", ")} to give {step}: run the workflow once and pick that run
              under Earlier outputs from, or pin {unread.length > 1 ? "their outputs" : "its output"} (Pin this output
              under a test of {unread.length > 1 ? "each" : "it"}).
            </p>
          ) : null}
          {ran?.error ? <p className="step-error">{ran.error}</p> : null}
          {ended ? (
            <>
              <JsonBlock value={ran?.output} empty="No output." label={`Output of ${step}`} />
              {completed ? <PickableOutput step={step} value={ran.output} /> : null}
              {path === undefined ? null : <StepTestDetails executionId={testId} path={path} />}
            </>
          ) : null}
          {topLevel && ran?.status === "COMPLETED" ? (
            <PinOutputButton workflowId={workflowId} step={step} output={ran.output} from={testId} />
          ) : null}
        </div>
      )}
    </section>
  );
}
