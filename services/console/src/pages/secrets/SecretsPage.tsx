import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { SecretView } from "../../api/types";
import { ConfirmDialog, Modal } from "../../ui/confirm";
import { Empty, ErrorState, FormError, Loading } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { SecretForm } from "./SecretForm";
import { SecretTable } from "./SecretTable";
import { secretsQuery } from "./queries";
import "./secrets.css";

/** The user's secrets, read by their workflows as {{ secrets.<name> }}: set, listed by name, replaced, deleted. */
export default function SecretsPage() {
  const queries = useQueryClient();
  const toast = useToast();
  const [replacing, setReplacing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const secrets = useQuery(secretsQuery);
  const remove = useMutation({
    mutationFn: (name: string) => api<void>("DELETE", `/api/console/secrets/${encodeURIComponent(name)}`),
    onSuccess: (_none, name) => {
      setDeleting(null);
      toast(`Secret ${name} deleted.`);
      void queries.invalidateQueries({ queryKey: secretsQuery.queryKey });
    },
  });
  const saved = (secret: SecretView) => {
    setReplacing(null);
    toast(`Secret ${secret.name} saved.`);
    void queries.invalidateQueries({ queryKey: secretsQuery.queryKey });
  };
  const names = secrets.data?.items.map((s) => s.name) ?? [];

  return (
    <div className="stack">
      <div className="page-head">
        <h1>Secrets</h1>
      </div>
      <div className="secrets-layout">
        <section className="card stack" aria-labelledby="set-secret-title">
          <h2 id="set-secret-title">Set a secret</h2>
          <SecretForm existing={names} onSaved={saved} />
        </section>
        <section className="stack" aria-label="Your secrets">
          {secrets.isPending ? (
            <Loading what="Loading your secrets" />
          ) : secrets.isError ? (
            <ErrorState error={secrets.error} retry={() => void secrets.refetch()} />
          ) : secrets.data.items.length === 0 ? (
            <Empty title="No secrets yet">
              Keep tokens and passwords your workflows need here rather than in their YAML.
            </Empty>
          ) : (
            <SecretTable
              secrets={secrets.data.items}
              onReplace={setReplacing}
              onDelete={(name) => {
                remove.reset();
                setDeleting(name);
              }}
            />
          )}
        </section>
      </div>
      <Modal
        open={replacing !== null}
        title={`Replace the value of ${replacing ?? ""}`}
        onClose={() => setReplacing(null)}
      >
        {replacing !== null ? (
          <SecretForm name={replacing} existing={names} onSaved={saved} onCancel={() => setReplacing(null)} />
        ) : null}
      </Modal>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the secret ${deleting ?? ""}?`}
        confirmLabel={remove.isPending ? "Deleting…" : "Delete secret"}
        danger
        busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting !== null && remove.mutate(deleting)}
      >
        Executions that read it from now on find it missing. Its value cannot be recovered.
        <FormError error={remove.error} />
      </ConfirmDialog>
    </div>
  );
}
