import type { Collection, Filter, IndexDescription } from "mongodb";
import { AlreadyExistsError } from "../../errors";
import { ExecutionSnapshot, TERMINAL_STATUSES } from "../../execution/snapshot";
import type {
  ApiKeyRepo,
  ApprovalListQuery,
  ApprovalRepo,
  CasCells,
  ArtifactRepo,
  AuditRepo,
  ChainRunsRepo,
  ExecutionListQuery,
  ExecutionRepo,
  Page,
  SecretRepo,
  PageQuery,
  ScheduleRepo,
  OpenPage,
  OpenStatus,
  StaleRepair,
  UserRepo,
  Versioned,
  WebhookRepo,
  WorkflowRepo,
} from "../port";
import {
  ApiKeyRecord,
  ApprovalRecord,
  ArtifactRecord,
  AuditRecord,
  AUDIT_RETENTION_MS,
  ChainRunsRecord,
  CreatesUnderWay,
  ScheduleRecord,
  SecretRecord,
  UserRecord,
  WebhookRecord,
  WorkflowRecord,
} from "../records";
import { DECOY_API_KEY } from "../decoy-api-key";
import { triggerFacts } from "../workflow-triggers";
import { MongoCells, type CellDoc } from "./mongo-cells";
import { MongoCollection, type StoredDoc } from "./mongo-collection";

// Each repo lists the indexes its queries need, next to the queries; the store creates them at
// open. `_id` ends every sort key so that ties on createdAt (or name) have a stable order.
const NEWEST = { createdAt: -1, _id: -1 } as const;
const OLDEST = { createdAt: 1, _id: 1 } as const;

export class MongoWorkflowRepo extends MongoCollection<WorkflowRecord> implements WorkflowRepo {
  /**
   * `visibleTo` is the owner plus every sharedWith user: `sharedWith.<uid>` keys cannot be indexed.
   * `chainedAfter` and `scheduled` are read from the definition's triggers.
   */
  static readonly indexes: IndexDescription[] = [
    { key: { visibleTo: 1, name: 1, _id: 1 } },
    { key: { chainedAfter: 1, ...OLDEST } },
    { key: { scheduled: 1, ...OLDEST } },
  ];

  readonly createsUnderWay: CasCells<CreatesUnderWay>;

  constructor(docs: Collection<StoredDoc>, creates: Collection<CellDoc>) {
    super(docs, "workflows", WorkflowRecord, (w) => ({
      name: w.name,
      visibleTo: [...new Set([w.ownerId, ...Object.keys(w.sharedWith)])],
      createdAt: w.createdAt,
      ...triggerFacts(w.definition),
    }));
    this.createsUnderWay = new MongoCells(creates, CreatesUnderWay);
  }

  listVisible(userId: string, page: PageQuery): Promise<Page<WorkflowRecord>> {
    return this.page({ visibleTo: userId }, { name: 1, _id: 1 }, page);
  }

  /**
   * By `visibleTo`, which every document has (an owner field would be missing from those written before it): fewer
   * than `atLeast` seen answers without reading them; else they are read to leave out those only shared.
   */
  async countOwned(ownerId: string, atLeast: number): Promise<number | null> {
    const primary = { readPreference: "primary" } as const;
    if ((await this.count({ visibleTo: ownerId }, primary)) < atLeast) return null;
    const owned = (await this.all({ visibleTo: ownerId }, { _id: 1 }, 0, primary)).filter((w) => w.ownerId === ownerId);
    return owned.length >= atLeast ? owned.length : null;
  }

  listChainedAfter(workflowId: string): Promise<WorkflowRecord[]> {
    return this.all({ chainedAfter: workflowId }, OLDEST);
  }

  async hasChainedAfter(workflowId: string): Promise<boolean> {
    return (await this.count({ chainedAfter: workflowId })) > 0;
  }

  listScheduled(): Promise<WorkflowRecord[]> {
    return this.all({ scheduled: true }, OLDEST);
  }

  async chainedSince(): Promise<number | null> {
    // By when each was last written, not created: a workflow made long ago may have been chained since.
    const [oldest] = await this.all({ "chainedAfter.0": { $exists: true } }, { updatedAt: 1, _id: 1 }, 1);
    return oldest?.updatedAt ?? null;
  }
}

export class MongoExecutionRepo extends MongoCollection<ExecutionSnapshot> implements ExecutionRepo {
  static readonly indexes: IndexDescription[] = [
    { key: { ownerId: 1, ...NEWEST } },
    { key: { ownerId: 1, workflowId: 1, ...NEWEST } },
    { key: { ownerId: 1, status: 1, ...NEWEST } },
    { key: { ownerId: 1, workflowId: 1, status: 1, ...NEWEST } },
    // Retention's and the sweeps' queries: by status, oldest first, any owner.
    { key: { status: 1, ...OLDEST } },
  ];

  constructor(docs: Collection<StoredDoc>) {
    // `triggerSource` is what lists keep step tests apart by; documents written before it was stored lack it, and are
    // listed as runs until their next write.
    super(docs, "executions", ExecutionSnapshot, (e) => ({
      ownerId: e.ownerId,
      workflowId: e.workflowId,
      status: e.status,
      createdAt: e.createdAt,
      triggerSource: e.triggerSource,
    }));
  }

  /** At the primary, whatever read preference the connection string sets. */
  getForWrite(id: string): Promise<Versioned<ExecutionSnapshot> | null> {
    return this.findOne({ _id: id }, { readPreference: "primary" });
  }

  readonly announcedInCommand = false;

  /** A record holds its definition whole. */
  namedDefinitionBytes(): null {
    return null;
  }

  /** And its variables. */
  nameVariables(vars: Record<string, unknown>): Promise<Record<string, unknown>> {
    return Promise.resolve(vars);
  }

  async announce(pending: ExecutionSnapshot): Promise<void> {
    await this.create(pending);
  }

  async withdraw(pending: ExecutionSnapshot): Promise<void> {
    const current = await this.get(pending.id);
    if (current?.value.status === "PENDING" && current.value.holder === null)
      await this.deleteAt(pending.id, current.version);
  }

  list({
    ownerId,
    workflowId,
    status,
    stepTests,
    from,
    ...page
  }: ExecutionListQuery): Promise<Page<ExecutionSnapshot>> {
    const filter = {
      ownerId,
      ...(workflowId === undefined ? {} : { workflowId }),
      ...(status === undefined ? {} : { status }),
      triggerSource: stepTests === true ? "step_test" : { $ne: "step_test" },
      ...(from === undefined
        ? {}
        : { $or: [{ createdAt: { $lt: from.createdAt } }, { createdAt: from.createdAt, _id: { $lte: from.id } }] }),
    };
    return this.page(filter, NEWEST, page);
  }

  async startListing(): Promise<void> {
    // The compound indexes answer each list; nothing to prepare.
  }

  async relist(): Promise<void> {
    // Lists read the records themselves; nothing can lag behind them.
  }

  async repairStale(
    createdBefore: number,
    limit: number,
    isQueued: (id: string) => Promise<boolean>,
    after?: string,
  ): Promise<StaleRepair> {
    const filter: Filter<StoredDoc> = { status: "PENDING", createdAt: { $lt: createdBefore }, ...olderAfter(after) };
    const stale = await this.all(filter, OLDEST, limit);
    let repaired = 0;
    for (const e of stale) {
      if (e.holder !== null || (await isQueued(e.id))) continue;
      await this.withdraw(e);
      repaired++;
    }
    return { repaired, next: nextAfter(stale, limit) };
  }

  async listOpenBefore(status: OpenStatus, createdBefore: number, limit: number, after?: string): Promise<OpenPage> {
    const filter: Filter<StoredDoc> = { status, createdAt: { $lt: createdBefore }, ...olderAfter(after) };
    const items = await this.all(filter, OLDEST, limit);
    return { items, next: nextAfter(items, limit) };
  }

  listFinishedBefore(createdBefore: number, limit: number): Promise<ExecutionSnapshot[]> {
    return this.all({ status: { $in: [...TERMINAL_STATUSES] }, createdAt: { $lt: createdBefore } }, OLDEST, limit);
  }
}

export class MongoApprovalRepo extends MongoCollection<ApprovalRecord> implements ApprovalRepo {
  /** Documents written before `stepTest` was stored lack it: indexed as null, they match `$ne: true`. */
  static readonly indexes: IndexDescription[] = [
    { key: { ownerId: 1, stepTest: 1, ...NEWEST } },
    { key: { ownerId: 1, stepTest: 1, status: 1, ...NEWEST } },
    { key: { executionId: 1, ...OLDEST } },
  ];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "approvals", ApprovalRecord, (a) => ({
      ownerId: a.ownerId,
      status: a.status,
      executionId: a.executionId,
      createdAt: a.createdAt,
      stepTest: a.stepTest,
    }));
  }

  list({ ownerId, status, stepTests, ...page }: ApprovalListQuery): Promise<Page<ApprovalRecord>> {
    const filter = {
      ownerId,
      stepTest: stepTests === true ? true : { $ne: true },
      ...(status === undefined ? {} : { status }),
    };
    return this.page(filter, NEWEST, page);
  }

  listByExecution(executionId: string): Promise<ApprovalRecord[]> {
    return this.all({ executionId }, OLDEST);
  }

  async startListing(): Promise<void> {
    // The compound indexes answer each list; nothing to prepare.
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

  listAll(): Promise<WebhookRecord[]> {
    return this.all({}, { _id: 1 });
  }
}

export class MongoUserRepo extends MongoCollection<UserRecord> implements UserRepo {
  /** `email` holds the lower-cased address: the unique index makes one account per email. */
  static readonly indexes: IndexDescription[] = [{ key: { email: 1 }, unique: true }];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "users", UserRecord, (u) => ({ email: normalEmail(u.email) }));
  }

  override async create(value: UserRecord): Promise<number> {
    try {
      return await super.create(value);
    } catch (err) {
      // The id is fresh in practice; a duplicate is the email's unique index.
      if (err instanceof AlreadyExistsError && (await this.get(value.id)) === null) {
        throw new AlreadyExistsError(`a user with email ${value.email}`);
      }
      throw err;
    }
  }

  getByEmail(email: string): Promise<Versioned<UserRecord> | null> {
    return this.findOne({ email: normalEmail(email) });
  }
}

export class MongoApiKeyRepo extends MongoCollection<ApiKeyRecord> implements ApiKeyRepo {
  static readonly indexes: IndexDescription[] = [{ key: { ownerId: 1, ...NEWEST } }];
  static readonly #decoy: StoredDoc = {
    _id: DECOY_API_KEY.id,
    ownerId: DECOY_API_KEY.ownerId,
    createdAt: DECOY_API_KEY.createdAt,
    version: 1,
    record: JSON.stringify(DECOY_API_KEY),
  };

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "api_keys", ApiKeyRecord, (k) => ({ ownerId: k.ownerId, createdAt: k.createdAt }));
  }

  override get(id: string): Promise<Versioned<ApiKeyRecord> | null> {
    return this.getEvenly(id, MongoApiKeyRepo.#decoy);
  }

  listByOwner(ownerId: string): Promise<ApiKeyRecord[]> {
    return this.all({ ownerId }, NEWEST);
  }
}

export class MongoAuditRepo extends MongoCollection<AuditRecord> implements AuditRepo {
  static readonly indexes: IndexDescription[] = [
    { key: { at: -1, _id: -1 } },
    // A TTL index: MongoDB removes each record once `expireAt` has passed.
    { key: { expireAt: 1 }, expireAfterSeconds: 0 },
  ];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "audit", AuditRecord, (a) => ({ at: a.at, expireAt: new Date(a.at + AUDIT_RETENTION_MS) }));
  }

  listSince(since: number, page: PageQuery): Promise<Page<AuditRecord>> {
    return this.page({ at: { $gte: since } }, { at: -1, _id: -1 }, page);
  }
}

export class MongoChainRunsRepo extends MongoCollection<ChainRunsRecord> implements ChainRunsRepo {
  static readonly indexes: IndexDescription[] = [];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "chain_runs", ChainRunsRecord, () => ({}));
  }
}

export class MongoScheduleRepo extends MongoCollection<ScheduleRecord> implements ScheduleRepo {
  static readonly indexes: IndexDescription[] = [];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "schedules", ScheduleRecord, () => ({}));
  }
}

export class MongoSecretRepo extends MongoCollection<SecretRecord> implements SecretRepo {
  static readonly indexes: IndexDescription[] = [{ key: { ownerId: 1, name: 1, _id: 1 } }];

  constructor(docs: Collection<StoredDoc>) {
    super(docs, "secrets", SecretRecord, (s) => ({ ownerId: s.ownerId, name: s.name }));
  }

  listByOwner(ownerId: string): Promise<SecretRecord[]> {
    return this.all({ ownerId }, { name: 1, _id: 1 });
  }

  listAll(): Promise<SecretRecord[]> {
    return this.all({}, { _id: 1 });
  }
}

function normalEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Where the next page goes on from, after a page of the oldest `executions` asked for `limit`: olderAfter's cursor,
 * or null once the page reached the newest.
 */
function nextAfter(executions: readonly ExecutionSnapshot[], limit: number): string | null {
  const last = executions.at(-1);
  return executions.length < limit || !last ? null : JSON.stringify([last.createdAt, last.id]);
}

/** Past the cursor of the page before: the last execution's [createdAt, id], in OLDEST order. */
function olderAfter(after: string | undefined): Filter<StoredDoc> {
  if (after === undefined) return {};
  const [createdAt, id] = JSON.parse(after) as [number, string];
  return { $or: [{ createdAt: { $gt: createdAt } }, { createdAt, _id: { $gt: id } }] };
}
