import type { WebhookMode, WebhookView } from "@wf/shared/api";
import type { WebhookRecord } from "@wf/shared/store";

/** A bound key wins over a secret (docs/webhooks.md, Modes); neither: the URL is the credential. */
export function modeOf(w: Pick<WebhookRecord, "apiKeyId" | "secretKey">): WebhookMode {
  if (w.apiKeyId !== null) return "api_key";
  return w.secretKey !== null ? "hmac" : "open";
}

/** The record as the API shows it: the secret only as `hasSecret`, never its (sealed) value. */
export function webhookView({ secretKey, ownerId: _owner, ...w }: WebhookRecord): WebhookView {
  return { ...w, hasSecret: secretKey !== null, triggerUrl: `/api/webhooks/${w.id}/trigger` };
}
