import { isShared, sharedValueOf } from "../../execution/parsed-definitions";
import { EXECUTION_STATUSES, ExecutionSnapshot, TERMINAL_STATUSES } from "../../execution/snapshot";
import { executionForm, NAMED_DEFINITION_BYTES } from "../execution-form";
import { pageWindow } from "../paging";
import type { ExecutionListQuery, ExecutionRepo, OpenPage, OpenStatus, Page, StaleRepair } from "../port";
import { ExecutionIndex } from "./execution-index";
import { FinishedExecutions } from "./finished-executions";
import { recordTokenOf } from "./index-keys";
import { IndexLists } from "./index-lists";
import { MarkedRemovals } from "./index-removals";
import { IndexRepairs } from "./index-repairs";
import { fromKeyToken, keyToken, sortableNumber } from "./key-codec";
import type { KvBuckets } from "./kv-buckets";
import { KvCollection, kvParts } from "./kv-collection";
import { executionLayout, executionSortId, parseExecutionKey } from "./layouts";
import type { PendingStarts } from "./pending-starts";
import type { StoredDefinitions } from "../../nats/stored-definitions";

const UNFINISHED = EXECUTION_STATUSES.filter((s) => !TERMINAL_STATUSES.has(s));
/**
 * Variables whose JSON is shorter are written whole in every write of their record: a few kilobytes a write are not
 * worth a put of their own and a read at each resume.
 */
export const VARIABLES_BY_REFERENCE_MIN_CHARS = 16 * 1024;

export class KvExecutionRepo extends KvCollection<ExecutionSnapshot> implements ExecutionRepo {
  readonly #index: ExecutionIndex;
  readonly #finished = new FinishedExecutions();
  readonly #lists: IndexLists<ExecutionSnapshot>;
  readonly #repairs: IndexRepairs<ExecutionSnapshot>;

  constructor(
    buckets: KvBuckets,
    private readonly starts: PendingStarts,
    /** Where a record's definition named by reference is read (execution-form.ts). */
    private readonly definitions: StoredDefinitions,
  ) {
    // The execution index follows the bucket, and sees removed keys go by their markers.
    const removals = new MarkedRemovals(buckets);
    const parts = kvParts(buckets, "executions", ExecutionSnapshot, executionLayout, {
      removals,
      unwritten: (id) => starts.get(id),
      form: executionForm(definitions),
    });
    super(parts);
    this.#lists = new IndexLists(buckets, parts.known);
    this.#repairs = new IndexRepairs(parts.known, parts.keys);
    this.#index = new ExecutionIndex(
      buckets.jsm,
      buckets.indexBucket,
      async (id) => (await this.get(fromKeyToken(id)))?.value.status ?? null,
      removals.staleMarkers(),
    );
  }

  readonly announcedInCommand = true;

  namedDefinitionBytes(definition: unknown): number | null {
    return this.definitions.storedRef(definition) === undefined ? null : NAMED_DEFINITION_BYTES;
  }

  async nameVariables(vars: Record<string, unknown>, ownerId: string): Promise<Record<string, unknown>> {
    let shared = vars;
    if (!isShared(vars)) {
      const json = JSON.stringify(vars);
      if (json.length < VARIABLES_BY_REFERENCE_MIN_CHARS) return vars;
      shared = sharedValueOf(vars, json);
    }
    // Not stored (the bucket electing its leader): written whole, and tried again at the record's next write.
    await this.definitions.refOf(shared, ownerId, "value");
    return shared;
  }

  announce(pending: ExecutionSnapshot): Promise<void> {
    return this.#repairs.putKeys(pending);
  }

  async withdraw(pending: ExecutionSnapshot): Promise<void> {
    // Taken: an executor wrote the record and holds the command, which stays to be delivered again should that
    // executor die (purged, the execution would stay open for good).
    if (await this.#repairs.written(pending.id)) return;
    // The command first: once it is gone, no executor can take it and write the record.
    await this.starts.remove(pending.id);
    await this.#repairs.dropKeysUnlessWritten(pending);
  }

  async list(query: ExecutionListQuery): Promise<Page<ExecutionSnapshot>> {
    const { skip, limit } = pageWindow(query);
    const { keys, statuses, total } = await this.#index.page({
      owner: keyToken(query.ownerId),
      stepTests: query.stepTests === true,
      ...(query.workflowId === undefined ? {} : { workflow: keyToken(query.workflowId) }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.from === undefined ? {} : { from: executionSortId(query.from) }),
      skip,
      limit,
    });
    const held = keys.map((key, i) => this.#finished.get(recordTokenOf(key), statuses[i]!));
    const missing = keys.filter((_, i) => held[i] === undefined);
    const read = new Map<string, ExecutionSnapshot>();
    for (const { value, bytes } of missing.length === 0 ? [] : await this.#lists.resolve(missing, query.status)) {
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
    return this.#repairs.settleKeys(id);
  }

  async listFinishedBefore(createdBefore: number, limit: number): Promise<ExecutionSnapshot[]> {
    const keys = await this.#index.oldest([...TERMINAL_STATUSES], sortableNumber(createdBefore), limit);
    const records = await this.#lists.resolve(keys);
    return records.flatMap(({ value }) => (TERMINAL_STATUSES.has(value.status) ? [value] : []));
  }

  async listOpenBefore(status: OpenStatus, createdBefore: number, limit: number, after?: string): Promise<OpenPage> {
    const keys = await this.#index.oldest([status], sortableNumber(createdBefore), limit, after);
    const records = keys.length === 0 ? [] : await this.#lists.resolve(keys);
    return {
      items: records.flatMap(({ value }) => (value.status === status ? [value] : [])),
      next: nextAfter(keys, limit),
    };
  }

  async repairStale(createdBefore: number, limit: number, _isQueued: unknown, after?: string): Promise<StaleRepair> {
    const keys = await this.#index.oldest(UNFINISHED, sortableNumber(createdBefore), limit, after);
    const repaired = await this.#repairs.repairKeys(keys);
    return { repaired, next: nextAfter(keys, limit) };
  }

  override close(): void {
    super.close();
    this.#index.close();
  }
}

/**
 * Where the next page goes on from, after a page of the oldest index `keys` asked for `limit`: the last key's sort id
 * (`<createdAt>.<id>` tokens), or null once the page reached the newest.
 */
function nextAfter(keys: readonly string[], limit: number): string | null {
  return keys.length < limit ? null : (parseExecutionKey(keys.at(-1)!)?.sortId ?? null);
}
