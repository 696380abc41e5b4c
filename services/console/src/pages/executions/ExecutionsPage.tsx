import { useMemo, useState } from "react";
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { Link, useNavigate, useSearchParams } from "react-router";
import type { ExecutionSummary } from "../../api/types";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatAgo, formatDuration, formatTime } from "../../ui/format";
import { Empty, ErrorState, Loading } from "../../ui/states";
import { executionDuration, hasEnded } from "./execution-status";
import { ExecutionFilters } from "./ExecutionFilters";
import { LiveIndicator } from "../../ui/LiveIndicator";
import { hasFilters, readUrlFilters, toListFilters, writeUrlFilters, type UrlFilters } from "./list-filters";
import { listRows } from "./list-rows";
import { comparePath, executionPath, fetchExecutionPage, fetchWorkflowNames, keys } from "./queries";
import { formatTokens, formatUsageCost } from "./usage-format";
import { useLiveExecutionList } from "./useLiveExecutionList";
import { useNow } from "./useNow";
import "./executions.css";

/** Every execution the person sees, newest first, filtered by what the URL says, live. */
export default function ExecutionsPage() {
  const [params, setParams] = useSearchParams();
  const search = params.toString();
  const url = useMemo(() => readUrlFilters(new URLSearchParams(search)), [search]);
  // A relative range ("last hour") is fixed when the filters change, so that refetches read the same list.
  const filters = useMemo(() => toListFilters(url, Date.now()), [url]);
  const setFilters = (next: UrlFilters) => setParams(writeUrlFilters(next), { replace: true });

  const list = useInfiniteQuery({
    queryKey: keys.list(filters),
    queryFn: ({ pageParam, signal }) => fetchExecutionPage(filters, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
  const names = useQuery({
    queryKey: keys.workflowNames,
    queryFn: ({ signal }) => fetchWorkflowNames(signal),
    staleTime: 60_000,
  });
  const stream = useLiveExecutionList();
  const items = useMemo(() => listRows(list.data?.pages ?? []), [list.data]);
  // Running durations move every few seconds; "3 min ago" needs no more than a slow tick.
  const now = useNow(items.some((e) => !hasEnded(e.status)) ? 5_000 : 30_000);
  // Two rows ticked to compare: a third tick lets go of the first.
  const [picked, setPicked] = useState<string[]>([]);
  const pick = (id: string, on: boolean) =>
    setPicked((all) => (on ? [...all.filter((p) => p !== id), id].slice(-2) : all.filter((p) => p !== id)));
  const navigate = useNavigate();
  const compare = () => {
    const [a, b] = picked
      .map((id) => items.find((e) => e.id === id))
      .filter((e) => e !== undefined)
      .sort((x, y) => x.createdAt - y.createdAt);
    if (a && b) void navigate(comparePath(a.id, b.id));
  };

  return (
    <div className="stack executions-page">
      <div className="page-head">
        <h1>Executions</h1>
        <LiveIndicator state={stream} />
        <div className="spacer" />
        {list.data ? (
          <span className="muted small">{items.length === 1 ? "1 shown" : `${items.length} shown`}</span>
        ) : null}
        <button
          type="button"
          onClick={compare}
          disabled={picked.length !== 2}
          title="Tick two executions of one workflow, then compare them step by step"
        >
          Compare{picked.length === 0 ? "" : ` (${picked.length} of 2)`}
        </button>
      </div>
      <ExecutionFilters value={url} onChange={setFilters} workflows={names.data} />
      {list.isPending ? (
        <Loading what="Loading executions" />
      ) : !list.data ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : items.length === 0 && !list.hasNextPage ? (
        <Empty title={hasFilters(url) ? "No execution matches these filters" : "No executions yet"}>
          {hasFilters(url)
            ? "Change or clear the filters."
            : "Run a workflow from its page; its executions show here as they start."}
        </Empty>
      ) : (
        <>
          {items.length === 0 ? (
            <Empty title="Nothing matched in the executions read so far">Load more to look further back.</Empty>
          ) : (
            <ExecutionTable items={items} names={names.data} now={now} picked={picked} onPick={pick} />
          )}
          {list.hasNextPage ? (
            <div className="row end">
              <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
                {list.isFetchingNextPage ? "Loading…" : "Load more"}
              </button>
            </div>
          ) : null}
          {list.isFetchNextPageError ? <ErrorState error={list.error} retry={() => void list.fetchNextPage()} /> : null}
        </>
      )}
    </div>
  );
}

function ExecutionTable({
  items,
  names,
  now,
  picked,
  onPick,
}: {
  items: ExecutionSummary[];
  names: Map<string, string> | undefined;
  now: number;
  picked: readonly string[];
  onPick: (id: string, on: boolean) => void;
}) {
  const navigate = useNavigate();
  return (
    <div className="table-wrap">
      <table className="executions-table" aria-label="Executions">
        <thead>
          <tr>
            <th className="pick">
              <span className="sr-only">Compare</span>
            </th>
            <th>Status</th>
            <th>Execution</th>
            <th>Workflow</th>
            <th>Trigger</th>
            <th>Started</th>
            <th className="num">Duration</th>
            <th className="num">Steps</th>
            <th className="num">Tokens</th>
            <th className="num">Cost</th>
          </tr>
        </thead>
        <tbody>
          {items.map((e) => (
            <tr
              key={e.id}
              className="clickable"
              data-execution-id={e.id}
              onClick={(event) => {
                // The row is a larger target for the link in it; a click on a link, in the pick cell or a text selection is left alone.
                if ((event.target as HTMLElement).closest("a, .pick") || window.getSelection()?.toString()) return;
                void navigate(executionPath(e.id));
              }}
            >
              <td className="pick">
                <input
                  type="checkbox"
                  aria-label={`Pick ${e.id} to compare`}
                  checked={picked.includes(e.id)}
                  onChange={(event) => onPick(e.id, event.target.checked)}
                />
              </td>
              <td>
                <StatusBadge status={e.status} />
              </td>
              <td>
                <Link to={executionPath(e.id)} className="mono">
                  {e.id}
                </Link>
                {e.rerunOf ? <span className="muted small"> rerun</span> : null}
              </td>
              <td className="ellipsis" title={e.workflowId}>
                {names?.get(e.workflowId) ?? <span className="mono muted">{e.workflowId}</span>}
              </td>
              <td>{e.triggerSource.replace("_", " ")}</td>
              <td title={formatTime(e.createdAt)}>{formatAgo(e.createdAt, now)}</td>
              <td className="num">{formatDuration(executionDuration(e, now))}</td>
              <td className="num">
                {e.completedSteps}/{e.totalSteps}
              </td>
              <td className="num">{formatTokens(e.usage)}</td>
              <td className="num">{formatUsageCost(e.usage)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
