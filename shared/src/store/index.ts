// The contract suite (`./contract`) is deliberately not exported here: it imports vitest, which
// throws when loaded outside a test run, and every service imports this entry point.
export type {
  Versioned,
  Page,
  PageQuery,
  Repo,
  WorkflowRepo,
  ExecutionRepo,
  ExecutionListQuery,
  OpenStatus,
  ApprovalListQuery,
  ApprovalRepo,
  CasCells,
  ArtifactRepo,
  WebhookRepo,
  UserRepo,
  ApiKeyRepo,
  AuditRepo,
  SecretRepo,
  ChainRunsRepo,
  ScheduleRepo,
  Store,
} from "./port";
export {
  WorkflowRecord,
  ApprovalStatus,
  ApprovalColumn,
  ApprovalRecord,
  ArtifactRecord,
  WebhookRecord,
  UserRecord,
  ApiKeyRecord,
  AuditRecord,
  SecretRecord,
  SECRET_NAME_PATTERN,
  secretId,
  ChainRunsRecord,
  CreatesUnderWay,
  ScheduleRecord,
  ExecutionStatus,
} from "./records";
export { openConfiguredStore, openStore, type StoreOptions, type StoreSettings } from "./open-store";
/** Whether a KV write lost its compare-and-set (another writer moved first, or the key exists). */
export { isWrongLastSequence } from "../nats/wrong-last-sequence";
export { JetStreamPublisher, type PublishMessage, type PublishOptions } from "./kv/jetstream-publisher";
export { newWorkflowRecord, nextWorkflowVersion } from "./new-workflow-record";
export { storeNextVersion } from "./store-next-version";
export { storeNewWorkflow, storeWorkflowUpdate } from "./workflow-writes";
export { createWithinBound, CREATE_UNDER_WAY_MS, type BoundedCreate } from "./workflow-bound";
export { settleApproval, type ApprovalSettlement } from "./settle-approval";
export { ownerPlan } from "./owner-plan";
/** The KV adapter's key layout, for tools that fill its buckets directly (the list benchmarks). */
export { keyToken } from "./kv/key-codec";
export { executionLayout } from "./kv/layouts";
