import type { KV } from "@nats-io/kv";
import { AlreadyExistsError } from "../../errors";
import { EXECUTION_STATUSES, ExecutionSnapshot, TERMINAL_STATUSES } from "../../execution/snapshot";
import type {
  ApiKeyRepo,
  ApprovalRepo,
  ArtifactRepo,
  AuditRepo,
  ChainRunsRepo,
  ExecutionListQuery,
  ExecutionRepo,
  ScheduleRepo,
  SecretRepo,
  StaleRepair,
  Page,
  PageQuery,
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
  type ApprovalStatus,
  ChainRunsRecord,
  ScheduleRecord,
  SecretRecord,
  UserRecord,
  WebhookRecord,
  WorkflowRecord,
} from "../records";
import { pageWindow } from "../paging";
import { ExecutionIndex } from "./execution-index";
import { KeyGroupsView } from "./key-groups-view";
import { FinishedExecutions } from "./finished-executions";
import { fromKeyToken, keyToken, sortableNumber } from "./key-codec";
import { isWrongLastSequence, KvCollection, recordTokenOf, type KvBuckets } from "./kv-collection";
import type { PendingStarts } from "./pending-starts";
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
  NO_INDEX,
  executionLayout,
  executionSortId,
  parseExecutionKey,
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

  constructor(buckets: KvBuckets) {
    super(buckets, "workflows", WorkflowRecord, { keys: workflowKeys });
    this.#chained = new RecentReads<boolean>(buckets.index, { key: ALL_CHAINED, tokenOf: chainedAfterToken });
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
    return this.page(visibleTo(userId), "asc", page);
  }

  async listChainedAfter(workflowId: string): Promise<WorkflowRecord[]> {
    const filter = chainedAfter(workflowId);
    const token = keyToken(workflowId);
    if (this.#chained.get(token)?.value === false) return [];
    const mark = this.#chained.mark();
    const any = (await this.firstKeyStoredAt(filter)) !== null;
    // Version 0: any change of its keys the watch reports evicts the answer.
    this.#chained.loaded(token, { value: any, version: 0 }, mark);
    return any ? this.all(filter, "asc") : [];
  }

  listScheduled(): Promise<WorkflowRecord[]> {
    return this.all(ALL_SCHEDULED, "asc");
  }

  chainedSince(): Promise<number | null> {
    return this.firstKeyStoredAt(ALL_CHAINED);
  }
}

const UNFINISHED = EXECUTION_STATUSES.filter((s) => !TERMINAL_STATUSES.has(s));

export class KvExecutionRepo extends KvCollection<ExecutionSnapshot> implements ExecutionRepo {
  readonly #index: ExecutionIndex;
  readonly #finished = new FinishedExecutions();

  constructor(
    buckets: KvBuckets,
    private readonly starts: PendingStarts,
  ) {
    super(buckets, "executions", ExecutionSnapshot, executionLayout, (id) => starts.get(id));
    this.#index = new ExecutionIndex(
      buckets.jsm,
      buckets.indexBucket,
      async (id) => (await this.get(fromKeyToken(id)))?.value.status ?? null,
      this.staleMarkers(),
    );
  }

  readonly announcedInCommand = true;

  announce(pending: ExecutionSnapshot): Promise<void> {
    return this.putKeys(pending);
  }

  async withdraw(pending: ExecutionSnapshot): Promise<void> {
    // The command first: once it is gone, no executor can take it and write the record.
    await this.starts.remove(pending.id);
    await this.dropKeysUnlessWritten(pending);
  }

  async list(query: ExecutionListQuery): Promise<Page<ExecutionSnapshot>> {
    const { skip, limit } = pageWindow(query);
    const { keys, statuses, total } = await this.#index.page({
      owner: keyToken(query.ownerId),
      ...(query.workflowId === undefined ? {} : { workflow: keyToken(query.workflowId) }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.from === undefined ? {} : { from: executionSortId(query.from) }),
      skip,
      limit,
    });
    const held = keys.map((key, i) => this.#finished.get(recordTokenOf(key), statuses[i]!));
    const missing = keys.filter((_, i) => held[i] === undefined);
    const read = new Map<string, ExecutionSnapshot>();
    for (const { value, bytes } of missing.length === 0 ? [] : await this.resolveKeys(missing, query.status)) {
      const token = keyToken(value.id);
      read.set(token, value);
      this.#finished.keep(token, value, bytes);
    }
    // An entry whose record is gone or moved on (a write the index has not seen yet) is left out.
    const items = keys.flatMap((key, i) => held[i] ?? read.get(recordTokenOf(key)) ?? []);
    return { items, total: total - (keys.length - items.length) };
  }

  override async delete(id: string): Promise<void> {
    try {
      await super.delete(id);
    } finally {
      this.#finished.forget(keyToken(id));
    }
  }

  startListing(): Promise<void> {
    return this.#index.start();
  }

  relist(id: string): Promise<void> {
    return this.settleKeys(id);
  }

  async listFinishedBefore(createdBefore: number, limit: number): Promise<ExecutionSnapshot[]> {
    const keys = await this.#index.oldest([...TERMINAL_STATUSES], sortableNumber(createdBefore), limit);
    const records = await this.resolveKeys(keys);
    return records.flatMap(({ value }) => (TERMINAL_STATUSES.has(value.status) ? [value] : []));
  }

  async repairStale(createdBefore: number, limit: number, _isQueued: unknown, after?: string): Promise<StaleRepair> {
    const keys = await this.#index.oldest(UNFINISHED, sortableNumber(createdBefore), limit, after);
    const repaired = await this.repairKeys(keys);
    // The cursor is the last key's sort id (`<createdAt>.<id>` tokens).
    return { repaired, next: keys.length < limit ? null : (parseExecutionKey(keys.at(-1)!)?.sortId ?? null) };
  }

  override close(): void {
    super.close();
    this.#index.close();
  }
}

export class KvApprovalRepo extends KvCollection<ApprovalRecord> implements ApprovalRepo {
  readonly #lists: KeyGroupsView;

  constructor(buckets: KvBuckets) {
    super(buckets, "approvals", ApprovalRecord, approvalLayout);
    this.#lists = new KeyGroupsView(buckets.jsm, buckets.indexBucket, approvalListed, "the approval lists", this.staleMarkers());
  }

  async list(query: { ownerId: string; status?: ApprovalStatus } & PageQuery): Promise<Page<ApprovalRecord>> {
    const { skip, limit } = pageWindow(query);
    const { keys, total } = await this.#lists.page(approvalGroup(query), skip, limit);
    // A key whose record is gone or moved on (a write the view has not seen yet) is left out.
    const items = (await this.resolveKeys(keys)).map((r) => r.value);
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
    return this.all(byExecution(executionId), "asc");
  }
}

export class KvArtifactRepo extends KvCollection<ArtifactRecord> implements ArtifactRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "artifacts", ArtifactRecord, { keys: artifactKeys });
  }

  listByExecution(executionId: string): Promise<ArtifactRecord[]> {
    return this.all(byExecution(executionId), "asc");
  }
}

export class KvWebhookRepo extends KvCollection<WebhookRecord> implements WebhookRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "webhooks", WebhookRecord, { keys: webhookKeys });
  }

  listByOwner(ownerId: string): Promise<WebhookRecord[]> {
    return this.all(byOwner(ownerId), "desc");
  }

  /** Counts verified records, not index keys: plan limits are enforced on this number. */
  async countByOwner(ownerId: string): Promise<number> {
    return (await this.listByOwner(ownerId)).length;
  }

  listAll(): Promise<WebhookRecord[]> {
    return this.all(ALL_OWNERS, "asc");
  }
}

export class KvApiKeyRepo extends KvCollection<ApiKeyRecord> implements ApiKeyRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "api_keys", ApiKeyRecord, { keys: apiKeyKeys });
  }

  listByOwner(ownerId: string): Promise<ApiKeyRecord[]> {
    return this.all(byOwner(ownerId), "desc");
  }
}

export class KvAuditRepo extends KvCollection<AuditRecord> implements AuditRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "audit", AuditRecord, { keys: auditKeys });
  }

  listSince(since: number, page: PageQuery): Promise<Page<AuditRecord>> {
    return this.page(ALL_AUDIT, "desc", page, { from: sortableNumber(since) });
  }
}

export class KvChainRunsRepo extends KvCollection<ChainRunsRecord> implements ChainRunsRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "chain_runs", ChainRunsRecord, NO_INDEX);
  }
}

export class KvScheduleRepo extends KvCollection<ScheduleRecord> implements ScheduleRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "schedules", ScheduleRecord, NO_INDEX);
  }
}

export class KvSecretRepo extends KvCollection<SecretRecord> implements SecretRepo {
  constructor(buckets: KvBuckets) {
    super(buckets, "secrets", SecretRecord, { keys: secretKeys });
  }

  listByOwner(ownerId: string): Promise<SecretRecord[]> {
    return this.all(byOwner(ownerId), "asc");
  }

  listAll(): Promise<SecretRecord[]> {
    return this.all(ALL_OWNERS, "asc");
  }
}

/**
 * Users by id, and a bucket of email claims (lower-cased email -> user id) that makes emails
 * unique: a user is created only after its claim is, and KV `create` lets one claim win. A
 * claim left by a crash between the two writes names a user that does not exist; the next
 * create of that email takes it over.
 */
export class KvUserRepo extends KvCollection<UserRecord> implements UserRepo {
  constructor(
    buckets: KvBuckets,
    private readonly emails: KV,
  ) {
    super(buckets, "users", UserRecord, NO_INDEX);
  }

  override async create(value: UserRecord): Promise<number> {
    const claim = emailClaim(value.email);
    await this.#claim(claim, value);
    try {
      return await super.create(value);
    } catch (err) {
      await this.#release(claim, value.id);
      throw err;
    }
  }

  override async delete(id: string): Promise<void> {
    const current = await this.get(id);
    await super.delete(id);
    if (current) await this.#release(emailClaim(current.value.email), id);
  }

  async getByEmail(email: string): Promise<Versioned<UserRecord> | null> {
    const entry = await this.emails.get(emailClaim(email));
    if (entry === null || entry.operation !== "PUT") return null;
    const user = await this.get(entry.string());
    return user && emailClaim(user.value.email) === emailClaim(email) ? user : null;
  }

  async #claim(claim: string, value: UserRecord): Promise<void> {
    try {
      await this.emails.create(claim, value.id);
      return;
    } catch (err) {
      if (!isWrongLastSequence(err)) throw err;
    }
    const entry = await this.emails.get(claim);
    const holder = entry?.operation === "PUT" ? entry.string() : null;
    if (entry === null || (holder !== null && (await this.get(holder)) !== null)) {
      throw new AlreadyExistsError(`a user with email ${value.email}`);
    }
    try {
      await this.emails.update(claim, value.id, entry.revision);
    } catch (err) {
      if (isWrongLastSequence(err)) throw new AlreadyExistsError(`a user with email ${value.email}`);
      throw err;
    }
  }

  async #release(claim: string, userId: string): Promise<void> {
    const entry = await this.emails.get(claim);
    if (entry?.operation !== "PUT" || entry.string() !== userId) return;
    // A claim changed since it was read belongs to someone else now.
    await this.emails.delete(claim, { previousSeq: entry.revision }).catch((err: unknown) => {
      if (!isWrongLastSequence(err)) throw err;
    });
  }
}

function emailClaim(email: string): string {
  return keyToken(email.trim().toLowerCase());
}
