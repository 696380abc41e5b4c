// The contract suite (`./contract`) is deliberately not exported here: it imports vitest, which
// throws when loaded outside a test run, and every service imports this entry point.
export type {
  Versioned,
  Page,
  PageQuery,
  Repo,
  WorkflowRepo,
  ExecutionRepo,
  ApprovalRepo,
  ArtifactRepo,
  WebhookRepo,
  Store,
} from "./port";
export {
  WorkflowRecord,
  ApprovalStatus,
  ApprovalColumn,
  ApprovalRecord,
  ArtifactRecord,
  WebhookRecord,
  ExecutionStatus,
} from "./records";
export { openStore, type StoreOptions } from "./open-store";
