import { ExecutionSnapshot, type ExecutionStatus } from "../../execution/snapshot";
import type { ApprovalRepo, ArtifactRepo, ExecutionRepo, Page, PageQuery, WebhookRepo, WorkflowRepo } from "../port";
import { ApprovalRecord, ArtifactRecord, type ApprovalStatus, WebhookRecord, WorkflowRecord } from "../records";
import { KvCollection, type KvBuckets } from "./kv-collection";
import {
  approvalFilter,
  approvalKeys,
  artifactKeys,
  byExecution,
  byOwner,
  executionFilter,
  executionKeys,
  visibleTo,
  webhookKeys,
  workflowKeys,
} from "./layouts";

export class KvWorkflowRepo extends KvCollection<WorkflowRecord> implements WorkflowRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "workflows", WorkflowRecord, workflowKeys);
  }

  listVisible(userId: string, page: PageQuery): Promise<Page<WorkflowRecord>> {
    return this.page(visibleTo(userId), "asc", page);
  }
}

export class KvExecutionRepo extends KvCollection<ExecutionSnapshot> implements ExecutionRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "executions", ExecutionSnapshot, executionKeys);
  }

  list(
    query: { ownerId: string; workflowId?: string; status?: ExecutionStatus } & PageQuery,
  ): Promise<Page<ExecutionSnapshot>> {
    return this.page(executionFilter(query), "desc", query);
  }
}

export class KvApprovalRepo extends KvCollection<ApprovalRecord> implements ApprovalRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "approvals", ApprovalRecord, approvalKeys);
  }

  list(query: { ownerId: string; status?: ApprovalStatus } & PageQuery): Promise<Page<ApprovalRecord>> {
    return this.page(approvalFilter(query), "desc", query);
  }

  listByExecution(executionId: string): Promise<ApprovalRecord[]> {
    return this.all(byExecution(executionId), "asc");
  }
}

export class KvArtifactRepo extends KvCollection<ArtifactRecord> implements ArtifactRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "artifacts", ArtifactRecord, artifactKeys);
  }

  listByExecution(executionId: string): Promise<ArtifactRecord[]> {
    return this.all(byExecution(executionId), "asc");
  }
}

export class KvWebhookRepo extends KvCollection<WebhookRecord> implements WebhookRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "webhooks", WebhookRecord, webhookKeys);
  }

  listByOwner(ownerId: string): Promise<WebhookRecord[]> {
    return this.all(byOwner(ownerId), "desc");
  }

  /** Counts verified records, not index keys: plan limits are enforced on this number. */
  async countByOwner(ownerId: string): Promise<number> {
    return (await this.listByOwner(ownerId)).length;
  }
}
