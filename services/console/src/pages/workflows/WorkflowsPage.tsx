import { useState } from "react";
import { Link } from "react-router";
import { keepPreviousData, useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import type { WorkflowItem } from "../../api/types";
import { ConfirmDialog } from "../../ui/confirm";
import { formatAgo, formatTime } from "../../ui/format";
import { Empty, ErrorState, FormError, Loading } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { ImportButton } from "./ImportButton";
import { NewWorkflowDialog } from "./NewWorkflowDialog";
import { deleteWorkflow, editorPath, fetchWorkflows, workflowKeys } from "./queries";
import { RoleBadge } from "./RoleBadge";
import { useDebounced } from "./useDebounced";
import "./workflows.css";

/** The workflows you own or are shared, newest first: search, create, import, delete. */
export default function WorkflowsPage() {
  const [search, setSearch] = useState("");
  const [creating, setCreating] = useState(false);
  const [toDelete, setToDelete] = useState<WorkflowItem | null>(null);
  const searched = useDebounced(search.trim(), 300);
  const queries = useQueryClient();
  const toast = useToast();

  const list = useInfiniteQuery({
    queryKey: workflowKeys.list(searched),
    queryFn: ({ pageParam, signal }) => fetchWorkflows(searched, pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // While a new search loads, the last answer stays on screen instead of a spinner per key.
    placeholderData: keepPreviousData,
  });

  const remove = useMutation({
    mutationFn: (workflow: WorkflowItem) => deleteWorkflow(workflow.id),
    onSuccess: async (_, workflow) => {
      setToDelete(null);
      toast(`Deleted “${workflow.name}”`);
      await queries.invalidateQueries({ queryKey: workflowKeys.all });
    },
  });

  const items = list.data?.pages.flatMap((page) => page.items) ?? [];
  const total = list.data?.pages[0]?.total;

  return (
    <div className="workflows-page">
      <div className="page-head">
        <h1>Workflows</h1>
        {total !== undefined ? (
          <span className="muted">{total === 1 ? "1 workflow" : `${total} workflows`}</span>
        ) : null}
        <input
          type="search"
          className="workflow-search"
          placeholder="Search by name"
          aria-label="Search workflows"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <div className="spacer" />
        <ImportButton />
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New workflow
        </button>
      </div>

      {list.isPending ? (
        <Loading what="Loading workflows" />
      ) : list.isError && !list.data ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : items.length === 0 ? (
        searched === "" ? (
          <Empty title="No workflows yet — create one">
            <button type="button" className="primary" onClick={() => setCreating(true)}>
              New workflow
            </button>
          </Empty>
        ) : (
          <Empty title={`No workflow's name contains “${searched}”`} />
        )
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Name</th>
                  <th className="num">Version</th>
                  <th className="num">Steps</th>
                  <th>Updated</th>
                  <th>Role</th>
                  <th aria-label="Actions" />
                </tr>
              </thead>
              <tbody>
                {items.map((w) => (
                  <tr key={w.id}>
                    <td className="workflow-name">
                      <Link to={editorPath(w.id)}>{w.name}</Link>
                    </td>
                    <td className="num">v{w.version}</td>
                    <td className="num">{w.stepCount}</td>
                    <td title={formatTime(w.updatedAt)}>{formatAgo(w.updatedAt)}</td>
                    <td>
                      <RoleBadge role={w.role} />
                    </td>
                    <td className="row-actions">
                      <Link
                        to={`/executions?workflowId=${encodeURIComponent(w.id)}`}
                        className="button"
                        aria-label={`Runs of ${w.name}`}
                      >
                        Runs
                      </Link>
                      <Link to={`${editorPath(w.id)}/versions`} className="button">
                        Versions
                      </Link>
                      <Link
                        to={`/workflows/new?copyOf=${encodeURIComponent(w.id)}`}
                        className="button"
                        aria-label={`Duplicate ${w.name}`}
                      >
                        Duplicate
                      </Link>
                      {w.role === "owner" ? (
                        <button
                          type="button"
                          onClick={() => (remove.reset(), setToDelete(w))}
                          aria-label={`Delete ${w.name}`}
                        >
                          Delete
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {list.hasNextPage ? (
            <div className="row load-more">
              <button type="button" disabled={list.isFetchingNextPage} onClick={() => void list.fetchNextPage()}>
                {list.isFetchingNextPage ? "Loading…" : "Load more"}
              </button>
              <span className="muted small">
                {items.length} of {total}
              </span>
            </div>
          ) : null}
          {list.isFetchNextPageError ? <FormError error={list.error} /> : null}
        </>
      )}

      <NewWorkflowDialog open={creating} onClose={() => setCreating(false)} />
      <ConfirmDialog
        open={toDelete !== null}
        title={`Delete “${toDelete?.name ?? ""}”?`}
        confirmLabel="Delete workflow"
        danger
        busy={remove.isPending}
        onConfirm={() => toDelete && remove.mutate(toDelete)}
        onCancel={() => setToDelete(null)}
      >
        <p>Every version of it is deleted; its past executions stay. This cannot be undone.</p>
        <FormError error={remove.error} />
      </ConfirmDialog>
    </div>
  );
}
