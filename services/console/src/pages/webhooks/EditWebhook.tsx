import { useState, type FormEvent } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { ApiKeyView, WebhookView, WorkflowItem } from "../../api/types";
import { FormActions } from "../../ui/fields";
import { FormError } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { formOf, updateBody } from "./form-state";
import { useWorkflowVariables, webhookKeys } from "./queries";
import { useProblems } from "./use-problems";
import { WebhookFields } from "./WebhookFields";

/** The webhook's settings, saved with one PUT; rendered again (keyed by updatedAt) after each save. */
export function EditWebhook({
  webhook,
  workflows,
  keys,
}: {
  webhook: WebhookView;
  workflows: WorkflowItem[];
  keys: ApiKeyView[];
}) {
  const queries = useQueryClient();
  const toast = useToast();
  const [form, setForm] = useState(() => formOf(webhook));
  const variables = useWorkflowVariables(webhook.workflowId);
  const problems = useProblems();
  const save = useMutation({
    mutationFn: () =>
      api<WebhookView>("PUT", `/api/webhooks/${encodeURIComponent(webhook.id)}`, updateBody(form, webhook)),
    onSuccess: (saved) => {
      queries.setQueryData(webhookKeys.one(saved.id), saved);
      void queries.invalidateQueries({ queryKey: webhookKeys.lists });
      toast(`Webhook ${saved.name} saved`);
    },
    onError: (err) => problems.fail(err, form),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (problems.check(form, webhook, variables.data)) save.mutate();
  };
  return (
    <form className="card form" onSubmit={submit} noValidate aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <FormError {...problems.summary} />
      <WebhookFields
        form={form}
        onChange={setForm}
        problems={problems.problems}
        current={webhook}
        workflows={workflows}
        keys={keys}
        variables={variables.data}
      />
      <FormActions
        submit="Save changes"
        busyLabel="Saving…"
        pending={save.isPending}
        other={{
          label: "Revert",
          disabled: save.isPending,
          onClick: () => {
            setForm(formOf(webhook));
            problems.clear();
          },
        }}
      />
    </form>
  );
}
