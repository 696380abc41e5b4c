import { useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "react-router";
import { api } from "../../api/client";
import type { WebhookView } from "../../api/types";
import { CopyButton } from "../../ui/CopyButton";
import { Modal } from "../../ui/confirm";
import { FormActions } from "../../ui/fields";
import { ErrorState, FormError, Loading } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { createBody, emptyForm } from "./form-state";
import { useKeyChoices, useWorkflowChoices, useWorkflowVariables, webhookKeys } from "./queries";
import { useProblems } from "./use-problems";
import { WebhookFields } from "./WebhookFields";

export function CreateWebhookModal({ open, onClose }: { open: boolean; onClose(): void }) {
  return (
    <Modal open={open} title="New webhook" onClose={onClose}>
      <CreateWebhookForm onClose={onClose} />
    </Modal>
  );
}

function CreateWebhookForm({ onClose }: { onClose(): void }) {
  const workflows = useWorkflowChoices();
  const keys = useKeyChoices();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const toast = useToast();
  const [form, setForm] = useState(emptyForm);
  const variables = useWorkflowVariables(form.workflowId);
  const problems = useProblems();
  // The secret is write-only on the API: this answer is the one moment it can still be shown.
  const [created, setCreated] = useState<{ webhook: WebhookView; secret: string } | null>(null);

  const create = useMutation({
    mutationFn: () => api<WebhookView>("POST", "/api/webhooks", createBody(form)),
    onSuccess: (webhook) => {
      void queries.invalidateQueries({ queryKey: webhookKeys.lists });
      toast(`Webhook ${webhook.name} created`);
      if (webhook.mode === "hmac") setCreated({ webhook, secret: form.secretKey });
      else void navigate(`/webhooks/${webhook.id}`);
    },
    onError: (err) => problems.fail(err, form),
  });

  if (workflows.isPending || keys.isPending) return <Loading what="Loading your workflows and keys" />;
  if (workflows.isError || keys.isError)
    return (
      <ErrorState
        error={workflows.error ?? keys.error}
        retry={() => {
          void workflows.refetch();
          void keys.refetch();
        }}
      />
    );

  if (created) {
    return (
      <div className="stack">
        <div className="secret-once stack wh-tight" role="status">
          <strong>Copy the secret now: it is not shown again.</strong>
          <span className="small">
            The service keeps it encrypted and never shows it; the sender signs each body with it.
          </span>
          <div className="row wh-nowrap">
            <code className="wh-secret wh-grow" aria-label="Webhook secret">
              {created.secret}
            </code>
            <CopyButton text={created.secret} />
          </div>
        </div>
        <div className="row end">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button type="button" className="primary" onClick={() => void navigate(`/webhooks/${created.webhook.id}`)}>
            Open the webhook
          </button>
        </div>
      </div>
    );
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (problems.check(form, null, variables.data)) create.mutate();
  };
  return (
    <form className="form" onSubmit={submit} noValidate>
      <FormError {...problems.summary} />
      <WebhookFields
        form={form}
        onChange={setForm}
        problems={problems.problems}
        current={null}
        workflows={workflows.data.items}
        keys={keys.data.items}
        variables={variables.data}
      />
      <FormActions
        submit="Create webhook"
        busyLabel="Creating…"
        pending={create.isPending}
        other={{ label: "Cancel", onClick: onClose }}
      />
    </form>
  );
}
