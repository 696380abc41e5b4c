import type { WebhookView, WorkflowVariable } from "../../api/types";

/** A string as one single-quoted shell word: nothing in it is expanded. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

const SAMPLES: Record<WorkflowVariable["type"], unknown> = {
  string: "example",
  number: 1,
  boolean: true,
  array: [],
  object: {},
};

/** A value the variable takes: its default, or else an example of its type. */
function sampleValue(v: WorkflowVariable | undefined): unknown {
  if (v === undefined) return "value";
  return v.default !== undefined ? v.default : SAMPLES[v.type];
}

/**
 * A payload that sets every variable the webhook can set, each to a value of its type (its
 * default when it has one), so that the example, sent as shown, starts the workflow: by name,
 * each string, number or boolean variable; as listed, each listed field.
 */
export function samplePayload(
  w: Pick<WebhookView, "variableMapping">,
  variables: Record<string, WorkflowVariable>,
): string {
  const fields =
    w.variableMapping === null
      ? Object.entries(variables)
          .filter(([, v]) => v.type === "string" || v.type === "number" || v.type === "boolean")
          .map(([name, v]) => [name, sampleValue(v)])
      : Object.entries(w.variableMapping).map(([variable, field]) => [field, sampleValue(variables[variable])]);
  return JSON.stringify(Object.fromEntries(fields));
}

/**
 * A shell snippet that triggers the webhook as its mode requires (docs/webhooks.md, The trigger).
 * Credentials come from environment variables, guarded so that a missing one stops the snippet
 * with a message instead of sending an unsigned request; signatures are over the exact bytes sent.
 */
export function curlExample(w: Pick<WebhookView, "mode" | "replayProtection">, url: string, payload: string): string {
  const lines: string[] = [];
  const headers: string[] = [];
  if (w.mode === "api_key") {
    lines.push(`: "\${WF_API_KEY:?set WF_API_KEY to the bound API key (wfk_…)}"`);
    headers.push(`-H "Authorization: Bearer $WF_API_KEY"`);
  }
  // No apostrophe in these messages: inside "${…:?…}" bash would take it for an opening quote.
  if (w.mode === "hmac") lines.push(`: "\${WF_WEBHOOK_SECRET:?set WF_WEBHOOK_SECRET to the secret of this webhook}"`);
  lines.push(`body=${shellQuote(payload)}`);
  if (w.mode === "hmac" && w.replayProtection) {
    lines.push(`id="msg_$(openssl rand -hex 12)"; ts=$(date +%s)`);
    lines.push(
      `sig=$(printf '%s.%s.%s' "$id" "$ts" "$body" | openssl dgst -sha256 -hmac "$WF_WEBHOOK_SECRET" -binary | base64)`,
    );
    headers.push(`-H "webhook-id: $id"`, `-H "webhook-timestamp: $ts"`, `-H "webhook-signature: v1,$sig"`);
  } else if (w.mode === "hmac") {
    lines.push(`sig=$(printf %s "$body" | openssl dgst -sha256 -hmac "$WF_WEBHOOK_SECRET" -r | cut -d' ' -f1)`);
    headers.push(`-H "X-Webhook-Signature: sha256=$sig"`);
  }
  headers.push(`-H 'content-type: application/json'`, `-d "$body"`);
  lines.push([`curl -sS -X POST ${shellQuote(url)}`, ...headers].join(" \\\n  "));
  return lines.join("\n");
}
