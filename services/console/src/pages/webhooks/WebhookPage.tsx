import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { formatTime } from "../../ui/format";
import { ErrorState, Loading } from "../../ui/states";
import { DeleteWebhookDialog } from "./DeleteWebhook";
import { EditWebhook } from "./EditWebhook";
import { ModeBadge } from "./ModeBadge";
import { useKeyChoices, useWebhook, useWorkflowChoices, useWorkflowVariables } from "./queries";
import { StatsCard } from "./StatsCard";
import { TriggerCard } from "./TriggerCard";
import "./webhooks.css";

export default function WebhookPage() {
  const { id = "" } = useParams();
  const navigate = useNavigate();
  const webhook = useWebhook(id);
  const workflows = useWorkflowChoices();
  const keys = useKeyChoices();
  const variables = useWorkflowVariables(webhook.data?.workflowId ?? "");
  const [deleting, setDeleting] = useState(false);

  // Without its variables the example would change under the reader; a workflow gone (an error) has none.
  if (
    webhook.isPending ||
    workflows.isPending ||
    keys.isPending ||
    (variables.isPending && variables.fetchStatus !== "idle")
  )
    return <Loading what="Loading the webhook" />;
  if (webhook.isError || workflows.isError || keys.isError)
    return (
      <>
        <p>
          <Link to="/webhooks">← Webhooks</Link>
        </p>
        <ErrorState
          error={webhook.error ?? workflows.error ?? keys.error}
          retry={() => {
            void webhook.refetch();
            void workflows.refetch();
            void keys.refetch();
          }}
        />
      </>
    );
  const w = webhook.data;
  const workflow = workflows.data.items.find((x) => x.id === w.workflowId);
  const boundKey = keys.data.items.find((k) => k.id === w.apiKeyId);

  return (
    <>
      <div className="page-head">
        <Link to="/webhooks">← Webhooks</Link>
        <h1>{w.name}</h1>
        <ModeBadge webhook={w} />
        <span className={`badge ${w.enabled ? "status-active" : "status-cancelled"}`}>
          {w.enabled ? "enabled" : "disabled"}
        </span>
        <div className="spacer" />
        <button type="button" className="danger" onClick={() => setDeleting(true)}>
          Delete
        </button>
      </div>
      <p className="muted wh-meta">
        Starts <Link to={`/workflows/${w.workflowId}`}>{workflow?.name ?? w.workflowId}</Link> · created{" "}
        {formatTime(w.createdAt)} · changed {formatTime(w.updatedAt)}
      </p>
      <div className="wh-detail">
        <div className="stack">
          <TriggerCard webhook={w} boundKey={boundKey} variables={variables.data ?? {}} />
          <StatsCard webhookId={w.id} />
        </div>
        <EditWebhook key={w.updatedAt} webhook={w} workflows={workflows.data.items} keys={keys.data.items} />
      </div>
      <DeleteWebhookDialog
        webhook={deleting ? w : null}
        onClose={() => setDeleting(false)}
        onDeleted={() => void navigate("/webhooks")}
      />
    </>
  );
}
