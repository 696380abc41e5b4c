import type { WebhookView } from "../../api/types";

const LABELS = { api_key: "API key", hmac: "HMAC", open: "Open" } as const;

/** The webhook's credential at a glance; open is marked as a warning, since the URL alone starts the workflow. */
export function ModeBadge({ webhook }: { webhook: Pick<WebhookView, "mode" | "replayProtection"> }) {
  const label = webhook.mode === "hmac" && webhook.replayProtection ? "HMAC + replay" : LABELS[webhook.mode];
  return <span className={`badge wh-mode-${webhook.mode}`}>{label}</span>;
}
