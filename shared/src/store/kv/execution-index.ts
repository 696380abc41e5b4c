import type { JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { BucketFollower, type BucketView, type StaleMarkers } from "./bucket-follower";
import { executionKeyOf, executionListOwner, parseExecutionKey, type ExecutionKey } from "./layouts";
import { ExecutionEntries } from "./execution-entries";
import { SortedList } from "./sorted-list";

/** An execution list and its sublists by status code, holding entries' handles. */
class Lists {
  readonly all: SortedList;
  readonly byStatus = new Map<number, SortedList>();

  constructor(readonly sortIdOf: (handle: number) => string) {
    this.all = new SortedList(sortIdOf);
  }

  add(handle: number, status: number): void {
    this.all.put(handle);
    this.#statusList(status).put(handle);
  }

  remove(sortId: string, status: number): void {
    this.all.delete(sortId);
    this.#leave(sortId, status);
  }

  move(handle: number, from: number, to: number): void {
    this.#leave(this.sortIdOf(handle), from);
    this.#statusList(to).put(handle);
  }

  list(status: number | undefined): SortedList | undefined {
    return status === undefined ? this.all : this.byStatus.get(status);
  }

  #statusList(status: number): SortedList {
    let list = this.byStatus.get(status);
    if (!list) this.byStatus.set(status, (list = new SortedList(this.sortIdOf)));
    return list;
  }

  #leave(sortId: string, status: number): void {
    const list = this.byStatus.get(status);
    if (list?.delete(sortId) && list.size === 0) this.byStatus.delete(status);
  }
}

class OwnerLists extends Lists {
  /** By workflow code. */
  readonly byWorkflow = new Map<number, Lists>();
}

export interface IndexPageQuery {
  /** Tokens, as in the index keys. */
  owner: string;
  /** The owner's step tests instead of the rest of their executions. */
  stepTests: boolean;
  workflow?: string;
  status?: string;
  /** Only entries whose `<createdAt>.<id>` sort key is at most this one. */
  from?: string;
  skip: number;
  limit: number;
}

/**
 * The execution lists of every owner, in memory, kept up to date by following the executions' index
 * bucket (`o.<owner>.<workflow>.<createdAt>.<id>` = status, `t.` for step tests) from its first key: a page reads no key it
 * does not return. A view of the bucket, rebuilt by each process that lists; before answering, a list
 * waits until it has applied the bucket's last sequence, so it sees every write that returned before
 * it was asked (docs/architecture.md#execution-lists).
 */
export class ExecutionIndex {
  readonly #owners = new Map<string, OwnerLists>();
  #entries = new ExecutionEntries();
  readonly #follower: BucketFollower;

  constructor(
    jsm: JetStreamManager,
    bucket: string,
    /** The status of an execution whose key carries none (written before keys carried it). */
    private readonly statusOf: (id: string) => Promise<string | null>,
    stale?: StaleMarkers,
  ) {
    const view: BucketView = { apply: (key, m, removed) => this.#apply(key, m, removed), reset: () => this.#reset() };
    this.#follower = new BucketFollower(jsm, bucket, view, "the execution lists", stale);
  }

  /** Starts following the bucket; lists do it themselves, a process that serves lists may do it early. */
  start(): Promise<void> {
    return this.#follower.start();
  }

  close(): void {
    this.#follower.close();
  }

  /** The index keys of one page with the status each carries, and how many entries the list holds in all. */
  async page(q: IndexPageQuery): Promise<{ keys: string[]; statuses: string[]; total: number }> {
    await this.#follower.ready();
    const entries = this.#entries;
    const listOwner = executionListOwner(q.owner, q.stepTests);
    const owner = this.#owners.get(listOwner);
    const lists = q.workflow === undefined ? owner : owner?.byWorkflow.get(entries.workflows.codeOf(q.workflow));
    const list = lists?.list(q.status === undefined ? undefined : entries.statuses.codeOf(q.status));
    if (!list) return { keys: [], statuses: [], total: 0 };
    const above = q.from === undefined ? 0 : list.countAbove(q.from);
    const handles = list.descending(above + q.skip, q.limit);
    return {
      keys: handles.map((h) => this.#keyOf(listOwner, h)),
      statuses: handles.map((h) => entries.statuses.value(entries.statusOf(h))),
      total: list.size - above,
    };
  }

  /**
   * The index keys of up to `limit` entries, any owner's, in one of `statuses` and sorted below
   * `below` and, given `above`, above it, oldest first.
   */
  async oldest(statuses: readonly string[], below: string, limit: number, above?: string): Promise<string[]> {
    await this.#follower.ready();
    const found: { key: string; sortId: string }[] = [];
    const codes = statuses.map((s) => this.#entries.statuses.codeOf(s));
    for (const [owner, lists] of this.#owners) {
      for (const status of codes) {
        for (const h of lists.byStatus.get(status)?.ascendingBetween(below, limit, above) ?? [])
          found.push({ key: this.#keyOf(owner, h), sortId: this.#entries.sortIdOf(h) });
      }
    }
    found.sort((a, b) => (a.sortId < b.sortId ? -1 : a.sortId > b.sortId ? 1 : 0));
    return found.slice(0, limit).map((f) => f.key);
  }

  #apply(subjectKey: string, m: JsMsg, removed: boolean): void {
    const key = parseExecutionKey(subjectKey);
    if (!key) return;
    if (removed) this.#remove(key);
    else if (m.data.length > 0) this.#put(key, m.string());
    else this.#putUnknown(key, m.seq);
  }

  #reset(): void {
    this.#owners.clear();
    this.#entries = new ExecutionEntries();
  }

  #keyOf(owner: string, handle: number): string {
    const entries = this.#entries;
    return executionKeyOf(owner, entries.workflows.value(entries.workflowOf(handle)), entries.sortIdOf(handle));
  }

  #put(key: ExecutionKey, status: string): void {
    const entries = this.#entries;
    let owner = this.#owners.get(key.owner);
    if (!owner) this.#owners.set(key.owner, (owner = new OwnerLists(entries.sortIdOf)));
    const workflow = entries.workflows.intern(key.workflow);
    const code = entries.statuses.intern(status);
    const before = owner.all.find(key.sortId);
    if (before >= 0 && entries.workflowOf(before) === workflow) {
      const was = entries.statusOf(before);
      if (was === code) return;
      owner.move(before, was, code);
      owner.byWorkflow.get(workflow)!.move(before, was, code);
      entries.setStatus(before, code);
      return;
    }
    if (before >= 0) this.#removeEntry(owner, before);
    let lists = owner.byWorkflow.get(workflow);
    if (!lists) owner.byWorkflow.set(workflow, (lists = new Lists(entries.sortIdOf)));
    const handle = entries.add(detached(key.sortId), workflow, code);
    owner.add(handle, code);
    lists.add(handle, code);
  }

  #remove(key: ExecutionKey): void {
    const owner = this.#owners.get(key.owner);
    const handle = owner?.all.find(key.sortId) ?? -1;
    if (!owner || handle < 0) return;
    this.#removeEntry(owner, handle);
    if (owner.all.size === 0) this.#owners.delete(key.owner);
  }

  #removeEntry(owner: OwnerLists, handle: number): void {
    const entries = this.#entries;
    const sortId = entries.sortIdOf(handle);
    const status = entries.statusOf(handle);
    const workflow = entries.workflowOf(handle);
    owner.remove(sortId, status);
    const lists = owner.byWorkflow.get(workflow);
    lists?.remove(sortId, status);
    if (lists?.all.size === 0) owner.byWorkflow.delete(workflow);
    entries.remove(handle);
  }

  /**
   * A key written before keys carried the status: listed at once under "" and moved to its
   * record's status when read; lists wait for that read as for a write not yet applied.
   */
  #putUnknown(key: ExecutionKey, seq: number): void {
    this.#put(key, "");
    const follower = this.#follower;
    follower.hold();
    const generation = follower.generation;
    void this.statusOf(key.id)
      .then((status) => {
        if (generation !== follower.generation || status === null) return;
        const handle = this.#owners.get(key.owner)?.all.find(key.sortId) ?? -1;
        if (handle >= 0 && this.#entries.statusOf(handle) === this.#entries.statuses.codeOf("")) this.#put(key, status);
      })
      .catch(() => undefined)
      .finally(() => follower.release(generation, seq));
  }
}

/**
 * A copy of `s` that holds no reference to the string it was cut from: V8 keeps a slice of a
 * subject as a view of the whole subject, which would keep every key's full subject in memory.
 */
function detached(s: string): string {
  return Buffer.from(s, "latin1").toString("latin1");
}
