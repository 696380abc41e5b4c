import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { ApiKeyList, ApiKeyView, CreatedApiKey } from "../../api/types";
import { ConfirmDialog, Modal } from "../../ui/confirm";
import { Empty, ErrorState, FormError, Loading } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { CreateKeyForm } from "./CreateKeyForm";
import { KeyTable } from "./KeyTable";
import { NewKeyNotice } from "./NewKeyNotice";
import "./keys.css";

const KEYS = ["keys"];

/** API keys: made here for programs that call /api/v1, listed, revoked. */
export default function KeysPage() {
  const queries = useQueryClient();
  const toast = useToast();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyView | null>(null);
  const keys = useQuery({
    queryKey: KEYS,
    queryFn: ({ signal }) => api<ApiKeyList>("GET", "/api/console/keys", undefined, signal),
  });
  const revoke = useMutation({
    mutationFn: (key: ApiKeyView) => api<ApiKeyView>("DELETE", `/api/console/keys/${encodeURIComponent(key.id)}`),
    onSuccess: (key) => {
      setRevoking(null);
      toast(`Key “${key.name}” revoked: it is refused from its next request on.`);
      void queries.invalidateQueries({ queryKey: KEYS });
    },
  });
  const now = Date.now();

  return (
    <div className="stack">
      <div className="page-head">
        <h1>API keys</h1>
        <div className="spacer" />
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          Create key
        </button>
      </div>
      <p className="muted page-intro">
        A key lets a program call the API (<code>/api/v1/…</code>) as you, with only the scopes you give it. Revoking a
        key stops it at once.
      </p>
      {created ? <NewKeyNotice created={created} onDone={() => setCreated(null)} /> : null}
      {keys.isPending ? (
        <Loading what="Loading your keys" />
      ) : keys.isError ? (
        <ErrorState error={keys.error} retry={() => void keys.refetch()} />
      ) : keys.data.items.length === 0 ? (
        <Empty title="No API keys yet">
          Create one for each program that calls the API, so that each can be revoked on its own.
        </Empty>
      ) : (
        <KeyTable
          keys={keys.data.items}
          now={now}
          onRevoke={(key) => {
            revoke.reset();
            setRevoking(key);
          }}
        />
      )}
      <Modal open={creating} title="Create an API key" onClose={() => setCreating(false)}>
        <CreateKeyForm
          onCancel={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            void queries.invalidateQueries({ queryKey: KEYS });
          }}
        />
      </Modal>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.name ?? ""}”?`}
        confirmLabel={revoke.isPending ? "Revoking…" : "Revoke key"}
        danger
        busy={revoke.isPending}
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && revoke.mutate(revoking)}
      >
        Programs using this key are refused from their next request on. A revoked key cannot be used again.
        <FormError error={revoke.error} />
      </ConfirmDialog>
    </div>
  );
}
