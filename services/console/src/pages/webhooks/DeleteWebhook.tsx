import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { WebhookView } from "../../api/types";
import { ConfirmDialog } from "../../ui/confirm";
import { FormError } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { webhookKeys } from "./queries";

/** Asks before deleting `webhook` (null: closed); its trigger URL answers 404 from then on. */
export function DeleteWebhookDialog({
  webhook,
  onClose,
  onDeleted,
}: {
  webhook: WebhookView | null;
  onClose(): void;
  onDeleted?(): void;
}) {
  const queries = useQueryClient();
  const toast = useToast();
  const remove = useMutation({
    mutationFn: (w: WebhookView) => api<void>("DELETE", `/api/webhooks/${encodeURIComponent(w.id)}`),
    onSuccess: (_nothing, w) => {
      toast(`Webhook ${w.name} deleted`);
      onClose();
      onDeleted?.();
      // Dropped, not refetched: a page still showing it would only get a 404.
      queries.removeQueries({ queryKey: webhookKeys.one(w.id) });
      queries.removeQueries({ queryKey: webhookKeys.stats(w.id) });
      void queries.invalidateQueries({ queryKey: webhookKeys.lists });
    },
  });
  return (
    <ConfirmDialog
      open={webhook !== null}
      title={`Delete the webhook ${webhook?.name ?? ""}?`}
      confirmLabel={remove.isPending ? "Deleting…" : "Delete webhook"}
      danger
      busy={remove.isPending}
      onConfirm={() => webhook && remove.mutate(webhook)}
      onCancel={() => {
        remove.reset();
        onClose();
      }}
    >
      Its trigger URL stops working at once (404) and its statistics are dropped; executions it started stay.
      <FormError error={remove.error} />
    </ConfirmDialog>
  );
}
