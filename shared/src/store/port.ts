import type { ExecutionSnapshot, ExecutionStatus } from "../execution/snapshot";
import type {
  ApiKeyRecord,
  ApprovalRecord,
  ApprovalStatus,
  ArtifactRecord,
  CreatesUnderWay,
  AuditRecord,
  ChainRunsRecord,
  ScheduleRecord,
  SecretRecord,
  UserRecord,
  WebhookRecord,
  WorkflowRecord,
} from "./records";

/** A record with the revision it was read at; writes at a stale revision lose (CasConflictError). */
export interface Versioned<T> {
  value: T;
  version: number;
}

export interface Page<T> {
  items: T[];
  total: number;
}

/** 1-based page, as the API speaks it. */
export interface PageQuery {
  page: number;
  size: number;
}

/**
 * A repository of one record type. `create` fails with AlreadyExistsError when the id exists;
 * `update` writes only at `expectedVersion` and otherwise fails with CasConflictError.
 */
export interface Repo<T extends { id: string }> {
  create(value: T): Promise<number>;
  /**
   * Never older than what this store last read or wrote of the record (KV: of the last 10,000 of
   * a type it saw; an older answer from a replica is read again at the bucket's leader. MongoDB
   * reads the primary). After a write of it through this store lost (CasConflictError,
   * AlreadyExistsError), what writes are checked against, until this store writes it (KV: the
   * leader's; a replica may hold a write the leader does not), so that a read-and-write-again
   * loop ends.
   */
  get(id: string): Promise<Versioned<T> | null>;
  /**
   * `get` for hot read paths, which may answer from memory: writes through this store are seen
   * at once, other writers' within a bounded delay (KV: a watch, normally a millisecond or so,
   * never more than 2 s). Its version may be behind: a write at it can lose.
   */
  getRecent(id: string): Promise<Versioned<T> | null>;
  update(value: T, expectedVersion: number): Promise<number>;
  delete(id: string): Promise<void>;
}

/** A value kept per key by compare-and-set; `version` 0 where the key has none yet. */
export interface CasCells<T> {
  /** As writes are checked against it (KV: at the leader; MongoDB: the primary); `fallback` where there is none. */
  read(key: string, fallback: T): Promise<Versioned<T>>;
  /** Writes `value` if the key is still at `expectedVersion` (0: has none); false when another writer moved first. */
  write(key: string, value: T, expectedVersion: number): Promise<boolean>;
}

export interface WorkflowRepo extends Repo<WorkflowRecord> {
  /** Workflows owned by or shared with `userId`, ordered by name then id. */
  listVisible(userId: string, page: PageQuery): Promise<Page<WorkflowRecord>>;
  /**
   * How many workflows `ownerId` owns (not those shared with them) when it is `atLeast` or more, else null. Counted as
   * writes are checked (KV: the index at its leader and the records at theirs; MongoDB: the primary), so that every
   * create that returned is counted; it may also count a create still under way.
   */
  countOwned(ownerId: string, atLeast: number): Promise<number | null>;
  /** Per owner, the creates of their workflows under way (workflow-bound.ts), held by compare-and-set. */
  readonly createsUnderWay: CasCells<CreatesUnderWay>;
  /** Workflows with a DELAYED_COMPLETION trigger whose `after` is `workflowId`, oldest first. */
  listChainedAfter(workflowId: string): Promise<WorkflowRecord[]>;
  /** Whether listChainedAfter(workflowId) has any, without reading them. */
  hasChainedAfter(workflowId: string): Promise<boolean>;
  /**
   * When the oldest chained trigger stored now was stored (epoch ms), or null while no workflow
   * has one: the scheduler consumes execution ends only from then on. By the store's own clock
   * where it keeps one per write (the KV adapter: the NATS server's), else the workflow's
   * `updatedAt`.
   */
  chainedSince(): Promise<number | null>;
  /** Workflows with at least one `schedule` trigger, oldest first. */
  listScheduled(): Promise<WorkflowRecord[]>;
}

export interface ExecutionRepo extends Repo<ExecutionSnapshot> {
  /** `get`, and never older than `atLeast`, a version of the record the caller saw (through any process). */
  get(id: string, atLeast?: number): Promise<Versioned<ExecutionSnapshot> | null>;
  /**
   * The record as writes are checked against it (KV: at the bucket's leader; MongoDB: the primary),
   * for a decision no later write would correct: to wait for another holder, to take over from one,
   * to count an execution ended. `get` may answer from a replica, which can lag, and on nats-server
   * 2.9 was seen to hold a write its cut-off leader took and the cluster never committed.
   */
  getForWrite(id: string): Promise<Versioned<ExecutionSnapshot> | null>;
  /**
   * Makes a new PENDING execution (an id never used before) listed and readable with one write, for a
   * start that publishes its command at the same time. KV writes only its list entry (where there is
   * none yet) and reads the snapshot from the start command until an executor creates the record
   * (`get` answers version 0; an update at version 0 creates it); MongoDB inserts the record
   * (docs/architecture.md#starts-from-the-api-and-webhooks).
   */
  announce(pending: ExecutionSnapshot): Promise<void>;
  /**
   * Whether `announce` leaves the record to the executor that takes the start command (KV: the
   * command is the record until then). That executor creates the record from the command it
   * holds, as for a start nobody announced, where it would otherwise read it first.
   */
  readonly announcedInCommand: boolean;
  /**
   * The bytes a record written now spends naming `definition` by reference in place of holding it (KV, for a
   * definition stored in `<ns>_definitions`: docs/architecture.md#definitions-by-reference); null where the record
   * holds it whole. The record budget counts it so.
   */
  namedDefinitionBytes(definition: unknown): number | null;
  /**
   * The variables a record written again should hold (docs/architecture.md#variables-by-reference): KV freezes large
   * ones in place and stores them in `<ns>_definitions`, and the record's writes from then on name them; the value
   * returned is the one the snapshot keeps. Small ones, and every store that writes records whole, give them back.
   */
  nameVariables(vars: Record<string, unknown>, ownerId: string): Promise<Record<string, unknown>>;
  /**
   * Undoes `announce` for a start whose announce or command publish failed, so that a failed start
   * leaves nothing behind: the KV adapter removes the command (if it was stored after all) and the
   * list entry; MongoDB deletes the record while it is PENDING and held by nobody. An execution an
   * executor already took (its record written) is left as it is, its command too.
   */
  withdraw(pending: ExecutionSnapshot): Promise<void>;
  /**
   * Newest first (by createdAt, then id). Filters are optional; with `from`, the list starts at
   * that execution (it and older ones), so that pages anchored on the first one of page 1 neither
   * skip nor repeat any while newer ones are written. Reads only the page it returns (KV: from an
   * in-memory view of the index; MongoDB: compound indexes).
   */
  list(query: ExecutionListQuery): Promise<Page<ExecutionSnapshot>>;
  /** Prepares lists ahead of the first (KV: starts following the index); lists do it themselves. */
  startListing(): Promise<void>;
  /**
   * Finished executions (a terminal status) of any owner created before `createdBefore` (epoch
   * ms), oldest first, at most `limit`: what retention removes.
   */
  listFinishedBefore(createdBefore: number, limit: number): Promise<ExecutionSnapshot[]>;
  /**
   * Executions of any owner in `status` (RUNNING or AWAITING_APPROVAL) created before `createdBefore`, oldest first,
   * at most `limit` past `after` (the `next` of the call before; null once this one reached the newest): where the
   * scheduler looks for executions a lost command or timer left open.
   */
  listOpenBefore(status: OpenStatus, createdBefore: number, limit: number, after?: string): Promise<OpenPage>;
  /**
   * Puts right what a crash or a long outage can leave of unfinished executions created before
   * `createdBefore`, for the scheduler's sweep: at most `limit` of the oldest, past `after` (the
   * `next` of the pass before); returns how many it changed and where the next pass goes on (null once
   * this one reached the newest). `isQueued` tells the MongoDB adapter whether a start command is still
   * queued. What it undoes and puts right (docs/architecture.md#retention).
   */
  repairStale(
    createdBefore: number,
    limit: number,
    isQueued: (id: string) => Promise<boolean>,
    after?: string,
  ): Promise<StaleRepair>;
  /**
   * Gives an execution's list entries its record's status where they carry another: for a writer
   * that takes over from one that may have stopped between a status write and its list writes
   * (an ended run whose executor died before its command was acknowledged). KV: reads each
   * entry, and puts it only where it differs, bound to the revision read; MongoDB: nothing to
   * do, its lists read the records.
   */
  relist(id: string): Promise<void>;
}

/** The statuses of an execution that waits for something: `listOpenBefore`'s. */
export type OpenStatus = "RUNNING" | "AWAITING_APPROVAL";

/** One page of `listOpenBefore`, and the opaque position the next call goes on from. */
export interface OpenPage {
  items: ExecutionSnapshot[];
  next: string | null;
}

/** One pass of `repairStale`: what it changed, and the opaque position the next pass goes on from. */
export interface StaleRepair {
  repaired: number;
  next: string | null;
}

export interface ExecutionListQuery extends PageQuery {
  ownerId: string;
  workflowId?: string;
  status?: ExecutionStatus;
  /** true: only step tests (triggerSource `step_test`); otherwise they are left out (docs/rerun.md#testing-one-step). */
  stepTests?: boolean;
  /** The execution the list starts at (inclusive), by its createdAt and id. */
  from?: { createdAt: number; id: string };
}

export interface ApprovalRepo extends Repo<ApprovalRecord> {
  /** Newest first. */
  list(query: ApprovalListQuery): Promise<Page<ApprovalRecord>>;
  /** All approvals of one execution, oldest first. */
  listByExecution(executionId: string): Promise<ApprovalRecord[]>;
  /** Prepares lists ahead of the first (KV: starts following the index); lists do it themselves. */
  startListing(): Promise<void>;
}

export interface ApprovalListQuery extends PageQuery {
  ownerId: string;
  status?: ApprovalStatus;
  /** true: only step tests' approvals (`stepTest`); otherwise they are left out (docs/rerun.md#testing-one-step). */
  stepTests?: boolean;
}

export interface ArtifactRepo extends Repo<ArtifactRecord> {
  /** All artifacts of one execution, oldest first. */
  listByExecution(executionId: string): Promise<ArtifactRecord[]>;
}

export interface WebhookRepo extends Repo<WebhookRecord> {
  /** Newest first. */
  listByOwner(ownerId: string): Promise<WebhookRecord[]>;
  countByOwner(ownerId: string): Promise<number>;
  /** Every owner's, in no particular order: for a pass over all of them (re-sealing their secrets). */
  listAll(): Promise<WebhookRecord[]>;
}

export interface UserRepo extends Repo<UserRecord> {
  /**
   * `create` also fails with AlreadyExistsError when another user has the same email (in any
   * letter case). The email is the account's identity: updates keep it.
   */
  getByEmail(email: string): Promise<Versioned<UserRecord> | null>;
}

/**
 * `get` of an id that no key has costs this process what finding one costs (a decoy record is
 * decoded, decoy-api-key.ts): the time a presented key takes to check must not tell which ids
 * exist. What remains is the server's part: it answers for a missing id sooner.
 */
export interface ApiKeyRepo extends Repo<ApiKeyRecord> {
  /**
   * One owner's keys, newest first (the console's key list). Keys created before this listing
   * existed are not in it (KV: no index key; MongoDB: until their next write); they still work.
   */
  listByOwner(ownerId: string): Promise<ApiKeyRecord[]>;
}
export type ChainRunsRepo = Repo<ChainRunsRecord>;
export type ScheduleRepo = Repo<ScheduleRecord>;

export interface AuditRepo extends Repo<AuditRecord> {
  /** Records at or after `since` (epoch ms), newest first. Records older than 90 days may be gone. */
  listSince(since: number, page: PageQuery): Promise<Page<AuditRecord>>;
}

export interface SecretRepo extends Repo<SecretRecord> {
  /** One owner's secrets, by name. */
  listByOwner(ownerId: string): Promise<SecretRecord[]>;
  /** Every owner's, in no particular order: for a pass over all of them (re-sealing under a new key). */
  listAll(): Promise<SecretRecord[]>;
}

/** The storage port. Both adapters (JetStream KV, MongoDB) pass the one contract suite in contract.ts. */
export interface Store {
  readonly kind: "kv" | "mongodb";
  readonly workflows: WorkflowRepo;
  readonly executions: ExecutionRepo;
  readonly approvals: ApprovalRepo;
  readonly artifacts: ArtifactRepo;
  readonly webhooks: WebhookRepo;
  readonly users: UserRepo;
  readonly apiKeys: ApiKeyRepo;
  readonly audit: AuditRepo;
  readonly secrets: SecretRepo;
  readonly chainRuns: ChainRunsRepo;
  readonly schedules: ScheduleRepo;
  close(): Promise<void>;
}
