import { z } from "zod";
import {
  ErrorBody,
  RateLimitErrorBody,
  ValidationErrorBody,
  WebhookTriggerParams,
  WebhookTriggerResponse,
} from "@wf/shared/api";
import type { RouteDoc } from "../routes/route";

export const TRIGGER_BODY_LIMIT_BYTES = 1024 * 1024;

const TriggerBody = z
  .record(z.string(), z.unknown())
  .describe(
    "Any JSON object; an empty body is {}. Read as raw bytes whatever the Content-Type, because the HMAC is over the exact bytes. " +
      "Top-level scalars naming workflow variables become its inputs, unless the webhook maps fields to variables (variableMapping).",
  );

const description =
  "The webhook's mode decides the credential. api_key: the bound key, with scope WEBHOOK_TRIGGER, sent as any API key is " +
  "(a stored secret is then ignored). hmac: X-Webhook-Signature (hex HMAC-SHA256 of the raw body, `sha256=` optional), or with " +
  "replay protection the Standard Webhooks headers webhook-id, webhook-timestamp and webhook-signature. open: none. " +
  "Checks in this order: unknown 404, disabled 409, a declared body over 1 MB 413, then before the body is read " +
  "the key 401, or in HMAC mode the address's budget of wrong signatures 429 and the signature's form 401; " +
  "then the body over 1 MB 413, " +
  "the signature over it 401, source address 403, invalid JSON 400, " +
  "owner's account and plan 403, rate 429, inputs too large for the execution's record 413, then 202 once the " +
  "execution is stored PENDING and its start command is durable. " +
  "HMAC and open triggers count against the owner's plan keyed by the webhook; API-key triggers against the bound key.";

const responses: RouteDoc["responses"] = {
  202: { description: "Accepted: the execution is stored PENDING and will run.", schema: WebhookTriggerResponse },
  400: { description: "The body is not a JSON object.", schema: ValidationErrorBody },
  401: {
    description:
      "The credential the webhook's mode asks for is missing or wrong (never said which); a missing or malformed one " +
      "before the body is read.",
    schema: ErrorBody,
  },
  403: {
    description:
      "The source address is not allowed, the owner's account is inactive, or the owner's plan has no webhook triggers.",
    schema: ErrorBody,
  },
  404: { description: "No such webhook.", schema: ErrorBody },
  409: {
    description: "The webhook is disabled, or its workflow is gone or no longer editable by its creator.",
    schema: ErrorBody,
  },
  413: {
    description:
      "The body is over 1 MB (checked before the credentials), or the inputs it sets leave the execution's record no " +
      "room for its steps' results (checked with the inputs).",
    schema: ErrorBody,
  },
  429: {
    description:
      "RATE_LIMITED: the webhook's (HMAC, open) or the bound key's (api_key) per-minute or per-day quota is used up. " +
      "WEBHOOK_THROTTLED (window minute, limit the wrong signatures one address may send it): this address sent this " +
      "webhook too many wrong signatures within the minute, and the request was refused before its body was read.",
    schema: RateLimitErrorBody,
  },
};

/** The trigger, at its canonical and its legacy path: served by webhooks/trigger.ts, documented here. */
export const triggerRouteDocs: readonly RouteDoc[] = [
  {
    path: "/api/webhooks/{webhook_id}/trigger",
    operationId: "triggerWebhook",
    summary: "Trigger a webhook's workflow",
  },
  {
    path: "/api/webhook-trigger/{webhook_id}",
    operationId: "triggerWebhookLegacy",
    summary: "Trigger a webhook's workflow (legacy path, same behaviour)",
  },
].map((doc) => ({
  ...doc,
  method: "POST",
  tag: "webhooks",
  auth: "webhook",
  params: WebhookTriggerParams,
  body: TriggerBody,
  status: 202,
  responses,
  description,
}));
