import { z } from "zod";
import { Scope } from "../auth/scopes";
import { ExecutionStatus, Usage } from "../execution/snapshot";
import { MIN_SECRET_CHARS } from "../secrets/masker";
import { SECRET_NAME_PATTERN } from "../store/records";
import { Id, Timestamp } from "./common";

/** The most days a usage report covers, and the most days a console-made key lives. */
export const MAX_USAGE_DAYS = 90;
export const MAX_KEY_DAYS = 3650;

export const CreateKeyBody = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(200, "must have at most 200 characters"),
  scopes: z
    .array(Scope)
    .min(1, "needs at least one scope")
    .transform((s) => [...new Set(s)]),
  expiresInDays: z
    .number({ error: "must be a whole number of days" })
    .int("must be a whole number of days")
    .min(1, "must be at least 1")
    .max(MAX_KEY_DAYS, `must be at most ${MAX_KEY_DAYS}`)
    .optional()
    .describe("Lifetime in days; absent: the key never expires."),
});

export const ApiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(Scope),
  createdAt: Timestamp,
  expiresAt: Timestamp.nullable(),
  lastUsedAt: Timestamp.nullable(),
  revoked: z.boolean(),
  revokedAt: Timestamp.nullable(),
});

export const CreatedApiKey = ApiKeyView.extend({
  key: z
    .string()
    .describe("The full key, `wfk_<id>_<secret>`: shown in this answer only; only a hash of the secret is kept."),
});

export const ApiKeyList = z.object({ items: z.array(ApiKeyView) });

export const SecretNameParams = z.strictObject({
  name: z
    .string()
    .regex(SECRET_NAME_PATTERN, "must start with a letter or _ and use only letters, digits and _ (64 at most)"),
});

export const PutSecretBody = z.strictObject({
  value: z
    .string()
    .min(MIN_SECRET_CHARS, `must have at least ${MIN_SECRET_CHARS} characters (shorter values cannot be masked)`)
    .refine((v) => Buffer.byteLength(v, "utf8") <= 64 * 1024, "must hold at most 65536 bytes"),
});

export const SecretView = z.object({ name: z.string(), createdAt: Timestamp, updatedAt: Timestamp });
export const SecretList = z.object({ items: z.array(SecretView) });

export const PasswordBody = z.strictObject({
  current: z.string().min(1, "must not be empty").max(1024, "must have at most 1024 characters"),
  next: z.string().min(8, "must have at least 8 characters").max(1024, "must have at most 1024 characters"),
});

export const PasswordChanged = z.object({
  otherSessionsEnded: z.number().int().describe("The user's other console sessions, ended; this one stays."),
});

export const UsageQuery = z.strictObject({
  days: z.coerce
    .number({ error: "must be an integer" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(MAX_USAGE_DAYS, `must be at most ${MAX_USAGE_DAYS}`)
    .default(30)
    .describe(`The window: the last N days up to now (UTC dates), default 30, at most ${MAX_USAGE_DAYS}.`),
});

const Spend = {
  executions: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  totalTokens: z.number().int(),
  costUsd: z.number(),
};

const Window = z.object({
  count: z.number().int(),
  limit: z.number().int().nullable().describe("null: no limit for this plan."),
});

export const UsageView = z.object({
  days: z.number().int(),
  from: Timestamp.describe("Start of the window (00:00 UTC of its first date)."),
  to: Timestamp,
  executionsRead: z.number().int(),
  truncated: z
    .boolean()
    .describe(
      "True when the window holds more executions than one report reads: the sums cover the newest `executionsRead`.",
    ),
  total: Usage,
  stepTests: z
    .object(Spend)
    .describe("The step tests among them (triggerSource step_test), counted in every other figure too."),
  byDay: z.array(z.object({ date: z.string().describe("yyyy-mm-dd, UTC."), ...Spend })),
  byWorkflow: z.array(z.object({ workflowId: Id, workflowName: z.string(), ...Spend })),
  byStatus: z.partialRecord(ExecutionStatus, z.number().int()),
  plan: z.string(),
  keys: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      minute: Window.describe("Requests in the current epoch minute."),
      day: Window.describe("Requests on the current UTC date."),
    }),
  ),
});
