import type { Logger } from "@wf/shared/log";
import {
  resealAll,
  retireLegacyKey,
  SecretBox,
  serverKey,
  type SealedRecords,
  type ServerKeyDeps,
} from "@wf/shared/secrets";
import type { Store, WebhookRecord } from "@wf/shared/store";

/**
 * The box of the webhooks' HMAC secrets (WF_WEBHOOK_SECRET_KEY, else keys.json). The first
 * opening after an upgrade moves the secrets sealed under the key earlier versions kept in
 * `<ns>_edge` to this one.
 */
export async function openWebhookSecretBox(deps: ServerKeyDeps & { store: Store; log: Logger }): Promise<SecretBox> {
  const box = new SecretBox(await serverKey("webhookSecrets", deps));
  await retireLegacyKey("webhookSecrets", deps, (old) => resealAll(webhookRecords(deps.store), old, box));
  return box;
}

function webhookRecords(store: Store): SealedRecords<WebhookRecord> {
  return {
    listAll: () => store.webhooks.listAll(),
    get: (id) => store.webhooks.get(id),
    update: (record, version) => store.webhooks.update(record, version),
    // The webhook's id is the associated data: a secret copied onto another webhook does not open.
    sealed: (record) => (record.secretKey === null ? null : { text: record.secretKey, context: record.id }),
    withSealed: (record, text) => ({ ...record, secretKey: text }),
  };
}
