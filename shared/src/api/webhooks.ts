import { z } from "zod";
import { Id, Timestamp } from "./common";
import { PageFields, pageQuery } from "./pagination";
import { parseIpRange } from "./webhooks-ip";

export const MAX_ALLOWED_SOURCE_IPS = 100;
const MAX_SECRET_KEY_LENGTH = 512;

export const WebhookMode = z.enum(["api_key", "hmac", "open"]);
export type WebhookMode = z.infer<typeof WebhookMode>;

const VariableName = z.string().min(1).max(128);
const FieldName = z.string().min(1, "must not be empty").max(256);

export const VariableMapping = z
  .record(VariableName, FieldName)
  .describe(
    "Workflow variable name -> top-level payload field name. Null: every top-level string, number or boolean field that names a variable.",
  );

export const AllowedSourceIps = z
  .array(z.string().refine((e) => parseIpRange(e) !== null, "must be an IPv4 or IPv6 address or CIDR range"))
  .max(MAX_ALLOWED_SOURCE_IPS, `must have at most ${MAX_ALLOWED_SOURCE_IPS} entries`)
  .describe("Source addresses and CIDR ranges allowed to trigger; empty: any.");

const SecretKey = z.string().min(16, "must have at least 16 characters").max(MAX_SECRET_KEY_LENGTH);

const settable = {
  name: z.string().min(1, "must not be empty").max(200),
  apiKeyId: Id.describe("Bind the webhook to this API key of yours (API-key mode)."),
  variableMapping: VariableMapping.nullable(),
  allowedSourceIps: AllowedSourceIps,
  enabled: z.boolean(),
  replayProtection: z
    .boolean()
    .describe("HMAC mode: require Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature)."),
};

export const CreateWebhookBody = z.strictObject({
  workflowId: Id,
  name: settable.name,
  apiKeyId: settable.apiKeyId.optional(),
  secretKey: SecretKey.optional().describe("Write-only. Enables HMAC mode when no API key is bound."),
  variableMapping: settable.variableMapping.default(null),
  allowedSourceIps: settable.allowedSourceIps.default([]),
  enabled: settable.enabled.default(true),
  replayProtection: settable.replayProtection.default(false),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

/** Merged into the webhook: absent fields keep their value. */
export const UpdateWebhookBody = z.strictObject({
  name: settable.name.optional(),
  apiKeyId: settable.apiKeyId.optional(),
  clearApiKeyId: z
    .boolean()
    .optional()
    .describe(
      "True unbinds the API key, and needs `secretKey` in the same request (a string for HMAC, null for open); " +
        "false changes nothing.",
    ),
  secretKey: SecretKey.nullable().optional().describe("Write-only. Null removes the secret."),
  variableMapping: settable.variableMapping.optional(),
  allowedSourceIps: settable.allowedSourceIps.optional(),
  enabled: settable.enabled.optional(),
  replayProtection: settable.replayProtection.optional(),
});
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

export const WebhookView = z.object({
  id: z.string(),
  workflowId: z.string(),
  name: z.string(),
  mode: WebhookMode,
  apiKeyId: z.string().nullable(),
  hasSecret: z.boolean(),
  variableMapping: z.record(z.string(), z.string()).nullable(),
  allowedSourceIps: z.array(z.string()),
  enabled: z.boolean(),
  replayProtection: z.boolean(),
  triggerUrl: z.string().describe("Path of the trigger, relative to the service's base address."),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WebhookView = z.infer<typeof WebhookView>;

export const WebhookListQuery = z.strictObject({ ...pageQuery(20) });
export const WebhookList = z.object({ items: z.array(WebhookView), ...PageFields });

export const WebhookStatsView = z.object({
  webhookId: z.string(),
  total: z.number().int(),
  accepted: z.number().int(),
  rejected: z.record(z.string(), z.number().int()).describe("HTTP status -> count."),
  lastRefusals: z
    .record(z.string(), z.object({ message: z.string(), at: Timestamp }))
    .describe("HTTP status -> the latest refusal of that status: its answer's `error` (why it was refused) and when."),
  lastTriggeredAt: Timestamp.nullable(),
});
export type WebhookStatsView = z.infer<typeof WebhookStatsView>;

export const WebhookTriggerParams = z.strictObject({ webhook_id: Id });

export const WebhookTriggerResponse = z.object({
  executionId: z.string(),
  webhookId: z.string(),
  workflowId: z.string(),
  status: z.literal("PENDING"),
  startedAt: Timestamp,
});
