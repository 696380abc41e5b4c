import { z } from "zod";
import { AuditReason } from "../auth/audit-reasons";
import { Plan, UserStatus } from "../auth/plans";
import { Scope } from "../auth/scopes";
import { ExecutionStatus } from "../execution/snapshot";

/** A stored workflow definition. `yaml` is the source of truth; `definition` is its parse. */
export const WorkflowRecord = z.object({
  id: z.string(),
  name: z.string(),
  ownerId: z.string(),
  yaml: z.string(),
  definition: z.unknown(),
  version: z.number().int().positive(),
  /** user id -> role, for shared workflows */
  sharedWith: z.record(z.string(), z.enum(["viewer", "editor"])).default({}),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** The earlier versions' text, oldest first (absent on records stored before versions were kept). */
  history: z
    .array(z.object({ version: z.number().int().positive(), yaml: z.string(), updatedAt: z.number() }))
    .optional(),
  /**
   * Where a person placed steps on the console's canvas, by step name: beside the YAML, never in it, and not versioned.
   */
  layout: z.object({ positions: z.record(z.string(), z.object({ x: z.number(), y: z.number() })) }).optional(),
  /**
   * Outputs pinned to top-level steps, by step name: step tests take them instead of running the
   * step (docs/rerun.md#testing-one-step). Beside the YAML like `layout`; a production run never reads them.
   */
  pins: z
    .record(z.string(), z.object({ output: z.unknown(), pinnedAt: z.number(), from: z.string().nullable() }))
    .optional(),
});
export type WorkflowRecord = z.infer<typeof WorkflowRecord>;

/** One owner's workflow creates under way: each workflow's id, to when its create began (epoch ms). */
export const CreatesUnderWay = z.record(z.string(), z.number());
export type CreatesUnderWay = z.infer<typeof CreatesUnderWay>;

export const ApprovalStatus = z.enum(["PENDING", "APPROVED", "REJECTED", "EXPIRED", "CANCELLED"]);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

export const ApprovalColumn = z.object({
  key: z.string(),
  title: z.string(),
  type: z.enum(["string", "number", "boolean"]),
  editable: z.boolean().default(false),
});

export const ApprovalRecord = z.object({
  id: z.string(),
  executionId: z.string(),
  workflowId: z.string(),
  ownerId: z.string(),
  stepName: z.string(),
  status: ApprovalStatus,
  approvalMessage: z.string(),
  timeout: z.number().int(),
  createdAt: z.number(),
  expiresAt: z.number(),
  reviewableGroups: z.array(
    z.object({
      name: z.string(),
      title: z.string(),
      columns: z.array(ApprovalColumn),
      items: z.array(z.record(z.string(), z.unknown())),
      itemsCount: z.number().int(),
    }),
  ),
  decidedAt: z.number().nullable().default(null),
  decidedBy: z.string().nullable().default(null),
  comment: z.string().nullable().default(null),
  editedItems: z
    .record(z.string(), z.array(z.record(z.string(), z.unknown())))
    .nullable()
    .default(null),
  /**
   * Opened by a step test's execution (triggerSource `step_test`): kept out of the owner's approval lists unless they
   * ask for step tests (docs/rerun.md#testing-one-step). Records written before it was kept read as not one.
   */
  stepTest: z.boolean().default(false),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

export const ArtifactRecord = z.object({
  id: z.string(),
  executionId: z.string(),
  ownerId: z.string(),
  stepName: z.string(),
  name: z.string(),
  path: z.string(),
  storageKey: z.string(),
  size: z.number().int().nonnegative(),
  contentType: z.string(),
  previewable: z.boolean(),
  createdAt: z.number(),
});
export type ArtifactRecord = z.infer<typeof ArtifactRecord>;

export const WebhookRecord = z.object({
  id: z.string(),
  ownerId: z.string(),
  workflowId: z.string(),
  name: z.string(),
  mode: z.enum(["api_key", "hmac", "open"]),
  apiKeyId: z.string().nullable(),
  /** The HMAC secret. HMAC needs the secret itself, so it is stored encrypted, never returned. */
  secretKey: z.string().nullable(),
  variableMapping: z.record(z.string(), z.string()).nullable(),
  allowedSourceIps: z.array(z.string()),
  enabled: z.boolean(),
  /** HMAC mode: Standard Webhooks headers with a timestamp and a remembered id are required. */
  replayProtection: z.boolean().default(false),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

/** An account. `email` is unique (compared in lower case); the password is kept as a scrypt hash only. */
export const UserRecord = z.object({
  id: z.string(),
  email: z.string(),
  passwordHash: z.string(),
  plan: Plan,
  status: UserStatus,
  /** Where this owner's code steps may connect, at most (within the operator's policy); unset: no narrowing. */
  egressAllow: z.array(z.string()).optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type UserRecord = z.infer<typeof UserRecord>;

/** An API key `wfk_<id>_<secret>`: only the SHA-256 of the secret is kept. */
export const ApiKeyRecord = z.object({
  id: z.string(),
  name: z.string(),
  ownerId: z.string(),
  scopes: z.array(Scope).min(1),
  secretHash: z.string(),
  createdAt: z.number(),
  expiresAt: z.number().nullable(),
  revokedAt: z.number().nullable(),
  lastUsedAt: z.number().nullable(),
});
export type ApiKeyRecord = z.infer<typeof ApiKeyRecord>;

/** Secret names are JSONata paths (`secrets.<name>`) and CLI arguments. */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** One owner's secret, read in its workflows as `{{ secrets.<name> }}`; the value is kept sealed only. */
export const SecretRecord = z.object({
  /** `secretId(ownerId, name)`: one record per owner and name. */
  id: z.string(),
  ownerId: z.string(),
  name: z.string().regex(SECRET_NAME_PATTERN),
  /** AES-256-GCM of the value, with `<ownerId>/<name>` as associated data. */
  sealed: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type SecretRecord = z.infer<typeof SecretRecord>;

export function secretId(ownerId: string, name: string): string {
  return `${ownerId}/${name}`;
}

/** How long audit records are kept (as long as the AUDIT stream keeps its events). */
export const AUDIT_RETENTION_MS = 90 * 24 * 3_600_000;

/** One refused request: why, with which key id (when one could be read), from where, to what. */
export const AuditRecord = z.object({
  id: z.string(),
  at: z.number(),
  reason: AuditReason,
  keyId: z.string().nullable(),
  ip: z.string(),
  method: z.string(),
  /** The path only: a query string may carry an API key. */
  path: z.string(),
  /**
   * 0 for a refusal recorded by itself. Otherwise a summary: how many refusals for `reason` from
   * `ip` (`*`: from addresses not summarised one by one) were counted, not recorded, in the minute
   * before `at`, past the edge's audit budget; `method` and `path` are the last one's.
   */
  repeats: z.number().int().min(0).default(0),
});
export type AuditRecord = z.infer<typeof AuditRecord>;

export { ExecutionStatus };

/**
 * The run counter of one chained (DELAYED_COMPLETION) trigger, for `max_runs`. `id` names the
 * trigger: `<target workflow id>:<after>:<n>`, the n-th trigger of the target that names that
 * `after`. `recent` holds the last source executions counted, so that an end event delivered
 * twice is counted once.
 */
export const ChainRunsRecord = z.object({
  id: z.string(),
  workflowId: z.string(),
  runs: z.number().int().nonnegative(),
  recent: z.array(z.string()),
  updatedAt: z.number(),
});
export type ChainRunsRecord = z.infer<typeof ChainRunsRecord>;

/**
 * The tick a scheduled workflow has armed (`id` is the workflow's id): which schedule it belongs
 * to (a fingerprint of the workflow's schedule triggers) and when it is due.
 */
export const ScheduleRecord = z.object({
  id: z.string(),
  fingerprint: z.string(),
  nextAt: z.number(),
  updatedAt: z.number(),
});
export type ScheduleRecord = z.infer<typeof ScheduleRecord>;
