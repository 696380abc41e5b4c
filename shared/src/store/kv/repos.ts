import type {
  ApiKeyRepo,
  ApprovalListQuery,
  ApprovalRepo,
  CasCells,
  ArtifactRepo,
  AuditRepo,
  ChainRunsRepo,
  ScheduleRepo,
  SecretRepo,
  Page,
  PageQuery,
  Versioned,
  WebhookRepo,
  WorkflowRepo,
} from "../port";
import {
  ApiKeyRecord,
  ApprovalRecord,
  ArtifactRecord,
  AuditRecord,
  ChainRunsRecord,
  CreatesUnderWay,
  ScheduleRecord,
  SecretRecord,
  WebhookRecord,
  WorkflowRecord,
} from "../records";
import { DECOY_API_KEY } from "../decoy-api-key";
import { pageWindow } from "../paging";
import { KeyGroupsView } from "./key-groups-view";
import { keyToken, sortableNumber } from "./key-codec";
import { foundAnswer, type FoundAnswer } from "./direct-reads";
import { IndexCells } from "./index-cells";
import { IndexLists } from "./index-lists";
import { MarkedRemovals } from "./index-removals";
import type { KnownRecords } from "./known-records";
import type { KvBuckets } from "./kv-buckets";
import { KvCollection, kvParts } from "./kv-collection";
import { RecentReads } from "./recent-reads";
import {
  ALL_AUDIT,
  ALL_OWNERS,
  ALL_SCHEDULED,
  apiKeyKeys,
  auditKeys,
  approvalGroup,
  approvalLayout,
  approvalListed,
  artifactKeys,
  byExecution,
  byOwner,
  ALL_CHAINED,
  chainedAfter,
  chainedAfterToken,
  CREATES_UNDER_WAY,
  NO_INDEX,
  secretKeys,
  visibleTo,
  webhookKeys,
  workflowKeys,
} from "./layouts";

export class KvWorkflowRepo extends KvCollection<WorkflowRecord> implements WorkflowRepo {
  /**
   * Per workflow, whether any workflow is chained after it: asked at the end of every execution
   * and nearly always "none", so answers are kept as hot reads are (recent-reads.ts), evicted by
   * a watch of the chain keys (`c.<after>.…`) and forgotten at every write through this store.
   */
  readonly #chained: RecentReads<boolean>;
  readonly #lists: IndexLists<WorkflowRecord>;
  readonly createsUnderWay: CasCells<CreatesUnderWay>;

  constructor(buckets: KvBuckets) {
    const parts = kvParts(buckets, "workflows", WorkflowRecord, { keys: workflowKeys });
    super(parts);
    this.#lists = new IndexLists(buckets, parts.known);
    this.#chained = new RecentReads<boolean>(buckets.index, { key: ALL_CHAINED, tokenOf: chainedAfterToken });
    this.createsUnderWay = new IndexCells(parts.keys, CREATES_UNDER_WAY, CreatesUnderWay);
  }

  override create(value: WorkflowRecord): Promise<number> {
    return this.#forgettingChains(super.create(value));
  }

  override update(value: WorkflowRecord, expectedVersion: number): Promise<number> {
    return this.#forgettingChains(super.update(value, expectedVersion));
  }

  override delete(id: string): Promise<void> {
    return this.#forgettingChains(super.delete(id));
  }

  /** A write of this store: whether it stored or not, no answer about chains held before it is served again. */
  async #forgettingChains<R>(write: Promise<R>): Promise<R> {
    try {
      return await write;
    } finally {
      this.#chained.forgetAll();
    }
  }

  override close(): void {
    super.close();
    this.#chained.close();
  }

  listVisible(userId: string, page: PageQuery): Promise<Page<WorkflowRecord>> {
    return this.#lists.page(visibleTo(userId), "asc", page);
  }

  /**
   * Every workflow the owner owns has a key among those they see, so fewer keys than `atLeast` answer without a read;
   * else the records are read, at their leaders, to leave out those only shared with them.
   */
  async countOwned(ownerId: string, atLeast: number): Promise<number | null> {
    const keys = await this.#lists.keys(visibleTo(ownerId));
    if (keys.length < atLeast) return null;
    const owned = (await this.#lists.resolve(keys, undefined, "leader")).filter((r) => r.value.ownerId === ownerId);
    return owned.length >= atLeast ? owned.length : null;
  }

  async listChainedAfter(workflowId: string): Promise<WorkflowRecord[]> {
    return (await this.hasChainedAfter(workflowId)) ? this.#lists.all(chainedAfter(workflowId), "asc") : [];
  }

  async hasChainedAfter(workflowId: string): Promise<boolean> {
    const token = keyToken(workflowId);
    const known = this.#chained.get(token)?.value;
    if (known !== undefined) return known;
    const mark = this.#chained.mark();
    const any = (await this.#lists.firstKeyStoredAt(chainedAfter(workflowId))) !== null;
    // Version 0: any change of its keys the watch reports evicts the answer.
    this.#chained.loaded(token, { value: any, version: 0 }, mark);
    return any;
  }

  listScheduled(): Promise<WorkflowRecord[]> {
    return this.#lists.all(ALL_SCHEDULED, "asc");
  }

  chainedSince(): Promise<number | null> {
    return this.#lists.firstKeyStoredAt(ALL_CHAINED);
  }
}

export class KvApprovalRepo extends KvCollection<ApprovalRecord> implements ApprovalRepo {
  readonly #lists: KeyGroupsView;
  readonly #keyLists: IndexLists<ApprovalRecord>;

  constructor(buckets: KvBuckets) {
    // An owner's lists are paged from a view that follows the index, and sees removed keys go by their markers.
    const removals = new MarkedRemovals(buckets);
    const parts = kvParts(buckets, "approvals", ApprovalRecord, approvalLayout, { removals });
    super(parts);
    this.#keyLists = new IndexLists(buckets, parts.known);
    this.#lists = new KeyGroupsView(
      buckets.jsm,
      buckets.indexBucket,
      approvalListed,
      "the approval lists",
      removals.staleMarkers(),
    );
  }

  async list(query: ApprovalListQuery): Promise<Page<ApprovalRecord>> {
    const { skip, limit } = pageWindow(query);
    const { keys, total } = await this.#lists.page(approvalGroup(query), skip, limit);
    // A key whose record is gone or moved on (a write the view has not seen yet) is left out.
    const items = (await this.#keyLists.resolve(keys)).map((r) => r.value);
    return { items, total: total - (keys.length - items.length) };
  }

  startListing(): Promise<void> {
    return this.#lists.start();
  }

  override close(): void {
    super.close();
    this.#lists.close();
  }

  listByExecution(executionId: string): Promise<ApprovalRecord[]> {
    return this.#keyLists.all(byExecution(executionId), "asc");
  }
}

export class KvArtifactRepo extends KvCollection<ArtifactRecord> implements ArtifactRepo {
  readonly #lists: IndexLists<ArtifactRecord>;

  constructor(buckets: KvBuckets) {
    const parts = kvParts(buckets, "artifacts", ArtifactRecord, { keys: artifactKeys });
    super(parts);
    this.#lists = new IndexLists(buckets, parts.known);
  }

  listByExecution(executionId: string): Promise<ArtifactRecord[]> {
    return this.#lists.all(byExecution(executionId), "asc");
  }
}

export class KvWebhookRepo extends KvCollection<WebhookRecord> implements WebhookRepo {
  readonly #lists: IndexLists<WebhookRecord>;

  constructor(buckets: KvBuckets) {
    const parts = kvParts(buckets, "webhooks", WebhookRecord, { keys: webhookKeys });
    super(parts);
    this.#lists = new IndexLists(buckets, parts.known);
  }

  listByOwner(ownerId: string): Promise<WebhookRecord[]> {
    return this.#lists.all(byOwner(ownerId), "desc");
  }

  /** Counts verified records, not index keys: plan limits are enforced on this number. */
  async countByOwner(ownerId: string): Promise<number> {
    return (await this.listByOwner(ownerId)).length;
  }

  listAll(): Promise<WebhookRecord[]> {
    return this.#lists.all(ALL_OWNERS, "asc");
  }
}

export class KvApiKeyRepo extends KvCollection<ApiKeyRecord> implements ApiKeyRepo {
  readonly #decoy: FoundAnswer;
  readonly #known: KnownRecords<ApiKeyRecord>;
  readonly #lists: IndexLists<ApiKeyRecord>;

  constructor(buckets: KvBuckets) {
    const parts = kvParts(buckets, "api_keys", ApiKeyRecord, { keys: apiKeyKeys });
    super(parts);
    this.#known = parts.known;
    this.#lists = new IndexLists(buckets, parts.known);
    this.#decoy = foundAnswer(buckets.recordsBucket, keyToken(DECOY_API_KEY.id), JSON.stringify(DECOY_API_KEY));
  }

  override get(id: string): Promise<Versioned<ApiKeyRecord> | null> {
    return this.#known.getEvenly(id, this.#decoy);
  }

  listByOwner(ownerId: string): Promise<ApiKeyRecord[]> {
    return this.#lists.all(byOwner(ownerId), "desc");
  }
}

export class KvAuditRepo extends KvCollection<AuditRecord> implements AuditRepo {
  readonly #lists: IndexLists<AuditRecord>;

  constructor(buckets: KvBuckets) {
    const parts = kvParts(buckets, "audit", AuditRecord, { keys: auditKeys });
    super(parts);
    this.#lists = new IndexLists(buckets, parts.known);
  }

  listSince(since: number, page: PageQuery): Promise<Page<AuditRecord>> {
    return this.#lists.page(ALL_AUDIT, "desc", page, { from: sortableNumber(since) });
  }
}

export class KvChainRunsRepo extends KvCollection<ChainRunsRecord> implements ChainRunsRepo {
  constructor(buckets: KvBuckets) {
    super(kvParts(buckets, "chain_runs", ChainRunsRecord, NO_INDEX));
  }
}

export class KvScheduleRepo extends KvCollection<ScheduleRecord> implements ScheduleRepo {
  constructor(buckets: KvBuckets) {
    super(kvParts(buckets, "schedules", ScheduleRecord, NO_INDEX));
  }
}

export class KvSecretRepo extends KvCollection<SecretRecord> implements SecretRepo {
  readonly #lists: IndexLists<SecretRecord>;

  constructor(buckets: KvBuckets) {
    const parts = kvParts(buckets, "secrets", SecretRecord, { keys: secretKeys });
    super(parts);
    this.#lists = new IndexLists(buckets, parts.known);
  }

  listByOwner(ownerId: string): Promise<SecretRecord[]> {
    return this.#lists.all(byOwner(ownerId), "asc");
  }

  listAll(): Promise<SecretRecord[]> {
    return this.#lists.all(ALL_OWNERS, "asc");
  }
}
