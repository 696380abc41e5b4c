import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import type { WebhookView } from "../../api/types";
import { ActionsHeader } from "../../ui/ActionsHeader";
import { formatAgo, formatTime } from "../../ui/format";
import { Empty, ErrorState, Loading } from "../../ui/states";
import { CreateWebhookModal } from "./CreateWebhook";
import { DeleteWebhookDialog } from "./DeleteWebhook";
import { ModeBadge } from "./ModeBadge";
import { LIST_SIZE, useWebhooks, useWorkflowChoices } from "./queries";
import "./webhooks.css";

export default function WebhooksPage() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get("page")) || 1);
  const list = useWebhooks(page);
  const workflows = useWorkflowChoices();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<WebhookView | null>(null);
  const workflowName = new Map((workflows.data?.items ?? []).map((w) => [w.id, w.name]));
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / LIST_SIZE)) : 1;
  const goTo = (p: number) => setParams(p === 1 ? {} : { page: String(p) });

  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
        <span className="muted">Start a workflow from an outside system with a POST to its trigger URL.</span>
        <div className="spacer" />
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New webhook
        </button>
      </div>
      {list.isPending ? (
        <Loading what="Loading your webhooks" />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <div className="card">
          <Empty title={page > 1 ? "No webhooks on this page" : "No webhooks yet"}>
            {page > 1 ? (
              <Link to="/webhooks">Back to the first page</Link>
            ) : (
              "Create one to let CI, a form or another service start a workflow."
            )}
          </Empty>
        </div>
      ) : (
        <div className="stack">
          <div className="table-wrap">
            <table aria-label="Webhooks" className="wh-list">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Workflow</th>
                  <th>Mode</th>
                  <th>Sources</th>
                  <th>State</th>
                  <th>Created</th>
                  <ActionsHeader />
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((w) => (
                  <tr key={w.id}>
                    <td>
                      <Link to={`/webhooks/${w.id}`}>{w.name}</Link>
                    </td>
                    <td>
                      <Link to={`/workflows/${w.workflowId}`}>
                        {workflowName.get(w.workflowId) ?? <code>{w.workflowId}</code>}
                      </Link>
                    </td>
                    <td>
                      <ModeBadge webhook={w} />
                    </td>
                    <td>
                      {w.allowedSourceIps.length === 0 ? (
                        <span className="muted">any</span>
                      ) : (
                        `${w.allowedSourceIps.length} allowed`
                      )}
                    </td>
                    <td>
                      <span className={`badge ${w.enabled ? "status-active" : "status-cancelled"}`}>
                        {w.enabled ? "enabled" : "disabled"}
                      </span>
                    </td>
                    <td title={formatTime(w.createdAt)}>{formatAgo(w.createdAt)}</td>
                    <td className="wh-actions">
                      <button
                        type="button"
                        className="ghost"
                        onClick={() => setDeleting(w)}
                        aria-label={`Delete ${w.name}`}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {pages > 1 ? (
            <div className="row end">
              <button type="button" disabled={page <= 1} onClick={() => goTo(page - 1)}>
                Previous
              </button>
              <span className="muted">
                Page {page} of {pages}
              </span>
              <button type="button" disabled={page >= pages} onClick={() => goTo(page + 1)}>
                Next
              </button>
            </div>
          ) : null}
        </div>
      )}
      <CreateWebhookModal open={creating} onClose={() => setCreating(false)} />
      <DeleteWebhookDialog webhook={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}
