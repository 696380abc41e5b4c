import { useState } from "react";
import type { ApiKeyView, WebhookView, WorkflowVariable } from "../../api/types";
import { CopyButton } from "../../ui/CopyButton";
import { curlExample, samplePayload } from "./curl";

/**
 * Where and how to trigger the webhook: its absolute URL and a curl command for its mode, whose
 * payload sets the workflow's variables until the person writes one of their own.
 */
export function TriggerCard({
  webhook,
  boundKey,
  variables,
}: {
  webhook: WebhookView;
  boundKey: ApiKeyView | undefined;
  variables: Record<string, WorkflowVariable>;
}) {
  const url = `${window.location.origin}${webhook.triggerUrl}`;
  const [written, setPayload] = useState<string | null>(null);
  const payload = written ?? samplePayload(webhook, variables);
  const command = curlExample(webhook, url, payload);
  return (
    <section className="card stack" aria-labelledby="trigger-title">
      <h2 id="trigger-title">Trigger</h2>
      <div className="stack wh-tight">
        <span className="wh-label">Trigger URL</span>
        <div className="row wh-nowrap">
          <code className="wh-url wh-grow" aria-label="Trigger URL">
            {url}
          </code>
          <CopyButton text={url} label="Copy URL" />
        </div>
        {!webhook.enabled ? (
          <span className="wh-problem">Disabled: every trigger answers 409 until it is enabled again.</span>
        ) : null}
      </div>
      <label>
        Example payload (a JSON object)
        <textarea rows={2} value={payload} spellCheck={false} onChange={(e) => setPayload(e.target.value)} />
      </label>
      <div className="stack wh-tight">
        <div className="row between">
          <span className="wh-label">curl</span>
          <CopyButton text={command} label="Copy command" />
        </div>
        <pre aria-label="curl example">{command}</pre>
        <span className="field-hint">{credentialHint(webhook, boundKey)}</span>
      </div>
      <p className="muted small">
        A trigger answers 202 with the execution's id once the execution is stored; its variables come from the payload.
      </p>
    </section>
  );
}

function credentialHint(w: WebhookView, boundKey: ApiKeyView | undefined): string {
  if (w.mode === "api_key")
    return `Set WF_API_KEY to the full key ${boundKey ? `"${boundKey.name}"` : "bound to this webhook"}, shown once when it was made; it goes as Authorization: Bearer, X-API-Key or ?api_key=.`;
  if (w.mode === "open")
    return "Open mode: no credential, the URL is the secret. Share it as you would a password, or pick a mode with a credential.";
  if (w.replayProtection)
    return "Set WF_WEBHOOK_SECRET to the webhook's secret. Each webhook-id is accepted once, and webhook-timestamp must be within 5 minutes of the service's clock.";
  return "Set WF_WEBHOOK_SECRET to the webhook's secret. The signature is over the exact bytes sent: sign the body you send, unchanged.";
}
