import type { Collection, IndexDescription } from "mongodb";
import { ExecutionSnapshot, type ExecutionStatus } from "../../execution/snapshot";
import type { ApprovalRepo, ArtifactRepo, ExecutionRepo, Page, PageQuery, WebhookRepo, WorkflowRepo } from "../port";
import { ApprovalRecord, ArtifactRecord, type ApprovalStatus, WebhookRecord, WorkflowRecord } from "../records";
import { MongoCollection, type StoredDoc } from "./mongo-collection";

// Each repo lists the indexes its queries need, next to the queries; the store creates them at
// open. `_id` ends every sort key so that ties on createdAt (or name) have a stable order.
const NEWEST = { createdAt: -1, _id: -1 } as const;
const OLDEST = { createdAt: 1, _id: 1 } as const;

export class MongoWorkflowRepo extends MongoCollection<WorkflowRecord> implements WorkflowRepo {
  /** `visibleTo` is the owner plus every sharedWith user: `sharedWith.<uid>` keys cannot be indexed. */
  static readonly indexes: IndexDescription[] = [{ key: { visibleTo: 1, name: 1, _id: 1 } }];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "workflows", WorkflowRecord, (w) => ({
      name: w.name,
      visibleTo: [...new Set([w.ownerId, ...Object.keys(w.sharedWith)])],
    }));
  }

  listVisible(userId: string, page: PageQuery): Promise<Page<WorkflowRecord>> {
    return this.page({ visibleTo: userId }, { name: 1, _id: 1 }, page);
  }
}

export class MongoExecutionRepo extends MongoCollection<ExecutionSnapshot> implements ExecutionRepo {
  static readonly indexes: IndexDescription[] = [
    { key: { ownerId: 1, ...NEWEST } },
    { key: { ownerId: 1, workflowId: 1, ...NEWEST } },
    { key: { ownerId: 1, status: 1, ...NEWEST } },
    { key: { ownerId: 1, workflowId: 1, status: 1, ...NEWEST } },
  ];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "executions", ExecutionSnapshot, (e) => ({
      ownerId: e.ownerId,
      workflowId: e.workflowId,
      status: e.status,
      createdAt: e.createdAt,
    }));
  }

  list({
    ownerId,
    workflowId,
    status,
    ...page
  }: { ownerId: string; workflowId?: string; status?: ExecutionStatus } & PageQuery): Promise<Page<ExecutionSnapshot>> {
    const filter = {
      ownerId,
      ...(workflowId === undefined ? {} : { workflowId }),
      ...(status === undefined ? {} : { status }),
    };
    return this.page(filter, NEWEST, page);
  }
}

export class MongoApprovalRepo extends MongoCollection<ApprovalRecord> implements ApprovalRepo {
  static readonly indexes: IndexDescription[] = [
    { key: { ownerId: 1, ...NEWEST } },
    { key: { ownerId: 1, status: 1, ...NEWEST } },
    { key: { executionId: 1, ...OLDEST } },
  ];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "approvals", ApprovalRecord, (a) => ({
      ownerId: a.ownerId,
      status: a.status,
      executionId: a.executionId,
      createdAt: a.createdAt,
    }));
  }

  list({ ownerId, status, ...page }: { ownerId: string; status?: ApprovalStatus } & PageQuery): Promise<Page<ApprovalRecord>> {
    return this.page({ ownerId, ...(status === undefined ? {} : { status }) }, NEWEST, page);
  }

  listByExecution(executionId: string): Promise<ApprovalRecord[]> {
    return this.all({ executionId }, OLDEST);
  }
}

export class MongoArtifactRepo extends MongoCollection<ArtifactRecord> implements ArtifactRepo {
  static readonly indexes: IndexDescription[] = [{ key: { executionId: 1, ...OLDEST } }];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "artifacts", ArtifactRecord, (a) => ({ executionId: a.executionId, createdAt: a.createdAt }));
  }

  listByExecution(executionId: string): Promise<ArtifactRecord[]> {
    return this.all({ executionId }, OLDEST);
  }
}

export class MongoWebhookRepo extends MongoCollection<WebhookRecord> implements WebhookRepo {
  static readonly indexes: IndexDescription[] = [{ key: { ownerId: 1, ...NEWEST } }];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "webhooks", WebhookRecord, (w) => ({ ownerId: w.ownerId, createdAt: w.createdAt }));
  }

  listByOwner(ownerId: string): Promise<WebhookRecord[]> {
    return this.all({ ownerId }, NEWEST);
  }

  countByOwner(ownerId: string): Promise<number> {
    return this.count({ ownerId });
  }
}
