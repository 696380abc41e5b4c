import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import { WfError } from "../../errors";
import { parseExecutionKey, type ExecutionKey } from "./layouts";
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
  workflow?: string;
  status?: string;
  /** Only entries whose `<createdAt>.<id>` sort key is at most this one. */
  from?: string;
  skip: number;
  limit: number;
}

/** A list waits this long for a follower that makes no progress before it fails. */
const CATCH_UP_MS = 5_000;
/** After this long without reaching the sequence waited for, the consumer is asked whether any is left. */
const STALL_MS = 50;
/**
 * The follower's heartbeat: two missed, and the ordered consumer is made again from where it
 * was. Its server may die (a cluster member restarting), which otherwise goes unseen for 30 s.
 */
const HEARTBEAT_MS = 1_000;

/**
 * The execution lists of every owner, held in memory and kept up to date by following the
 * executions' index bucket (`o.<owner>.<workflow>.<createdAt>.<id>` = status) from its first key:
 * a page reads no key it does not return. The bucket stays the one source; this is a view of it,
 * rebuilt by each process that lists (one ordered consumer, no durable state).
 *
 * Read-your-writes: before answering, a list asks the server for the bucket's last sequence and
 * waits until the follower has applied it, so a list made after a write returned (by any
 * process) sees that write.
 */
export class ExecutionIndex {
  readonly #owners = new Map<string, OwnerLists>();
  #entries = new ExecutionEntries();
  #applied = 0;
  #waiters: { seq: number; done(): void; fail(err: unknown): void }[] = [];
  #messages: ConsumerMessages | null = null;
  #consumer: Consumer | null = null;
  #started: Promise<void> | null = null;
  #closed = false;
  /** Counts the views built: a status read started for an earlier one is dropped. */
  #generation = 0;
  /** Status reads of keys that carry none, still in flight. */
  #pending = 0;
  /** The last-sequence request the lists asking in this turn share, until it is sent. */
  #nextLastSeq: Promise<number> | null = null;

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
    /** The status of an execution whose key carries none (written before keys carried it). */
    private readonly statusOf: (id: string) => Promise<string | null>,
  ) {}

  /** Starts following the bucket; lists do it themselves, a process that serves lists may do it early. */
  start(): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    this.#started ??= this.#follow().catch((err: unknown) => {
      this.#started = null;
      throw err;
    });
    return this.#started;
  }

  close(): void {
    this.#closed = true;
    void this.#messages?.close();
    this.#lose(closedError());
  }

  /** The index keys of one page with the status each carries, and how many entries the list holds in all. */
  async page(q: IndexPageQuery): Promise<{ keys: string[]; statuses: string[]; total: number }> {
    await this.start();
    await this.#caughtUp();
    const entries = this.#entries;
    const owner = this.#owners.get(q.owner);
    const lists = q.workflow === undefined ? owner : owner?.byWorkflow.get(entries.workflows.codeOf(q.workflow));
    const list = lists?.list(q.status === undefined ? undefined : entries.statuses.codeOf(q.status));
    if (!list) return { keys: [], statuses: [], total: 0 };
    const above = q.from === undefined ? 0 : list.countAbove(q.from);
    const handles = list.descending(above + q.skip, q.limit);
    return {
      keys: handles.map((h) => this.#keyOf(q.owner, h)),
      statuses: handles.map((h) => entries.statuses.value(entries.statusOf(h))),
      total: list.size - above,
    };
  }

  /**
   * The index keys of up to `limit` entries, any owner's, in one of `statuses` and sorted below
   * `below` and, given `above`, above it, oldest first.
   */
  async oldest(statuses: readonly string[], below: string, limit: number, above?: string): Promise<string[]> {
    await this.start();
    await this.#caughtUp();
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

  async #follow(): Promise<void> {
    const stream = `KV_${this.bucket}`;
    const prefix = `$KV.${this.bucket}.`;
    // Every key, not only `o.` ones: the last sequence waited for may be any key's. The bucket
    // keeps one value per key, so the whole stream is each key's last value, and a consumer of all
    // of it, unfiltered, is made at once: one of each key's last value (LastPerSubject) had
    // nats-server 2.9.10 gather them first, ~3 s at a million keys, past the 5 s request timeout
    // on a slower VM. Its requests keep that timeout, so one lost in a leader move is soon sent again.
    const consumer = await this.jsm.jetstream().consumers.get(stream, { deliver_policy: DeliverPolicy.All });
    this.#consumer = consumer;
    // A callback, not the async iterator: each message applied where it is parsed, without a
    // promise of its own (the view follows every status change of every execution).
    const messages = await consumer.consume({
      max_messages: 10_000,
      idle_heartbeat: HEARTBEAT_MS,
      expires: 5 * HEARTBEAT_MS,
      callback: (m) => this.#apply(m, prefix.length),
    });
    this.#messages = messages;
    void messages.closed().then((err) => {
      // Whatever ended it (the stream gone, a fatal consumer error), the next list starts afresh.
      if (!this.#closed && this.#messages === messages)
        this.#lose(err ?? new WfError("UNAVAILABLE", "the execution lists lost their consumer; the next list builds them again"));
    });
  }

  #apply(m: JsMsg, prefixLength: number): void {
    const key = parseExecutionKey(m.subject.slice(prefixLength));
    if (key) {
      const op = m.headers?.get("KV-Operation");
      if (op === "DEL" || op === "PURGE") this.#remove(key);
      else if (m.data.length > 0) this.#put(key, m.string());
      else this.#putUnknown(key, m.seq);
    }
    this.#advance(m.seq);
  }

  #keyOf(owner: string, handle: number): string {
    const entries = this.#entries;
    return `o.${owner}.${entries.workflows.value(entries.workflowOf(handle))}.${entries.sortIdOf(handle)}`;
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
    this.#pending += 1;
    const generation = this.#generation;
    void this.statusOf(key.id)
      .then((status) => {
        if (generation !== this.#generation || status === null) return;
        const handle = this.#owners.get(key.owner)?.all.find(key.sortId) ?? -1;
        if (handle >= 0 && this.#entries.statusOf(handle) === this.#entries.statuses.codeOf("")) this.#put(key, status);
      })
      .catch(() => undefined)
      .finally(() => {
        if (generation !== this.#generation) return;
        this.#pending -= 1;
        this.#advance(seq);
      });
  }

  #advance(seq: number): void {
    if (seq > this.#applied) this.#applied = seq;
    if (this.#pending > 0 || this.#waiters.length === 0) return;
    const ready = this.#waiters.filter((w) => w.seq <= this.#applied);
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => w.seq > this.#applied);
    for (const w of ready) w.done();
  }

  /**
   * Waits until the follower has applied every write stored before now: the bucket's last
   * sequence, read from the server. Should that message be gone before it was delivered (a
   * marker purged meanwhile), the consumer's own state says when nothing is left to deliver.
   * However long the follower takes while it makes progress (a first build reads every key);
   * after CATCH_UP_MS without any, the list fails rather than answer from a partial view.
   */
  async #caughtUp(): Promise<void> {
    const last = await this.#lastSeq();
    let progress = this.#applied;
    let stalledSince = Date.now();
    while (!this.#isApplied(last)) {
      // A view lost meanwhile is built again, and waited for like a first one.
      if (this.#started === null) await this.start();
      if (await this.#appliedBy(last, STALL_MS)) break;
      if (this.#applied > progress) {
        progress = this.#applied;
        stalledSince = Date.now();
        continue;
      }
      const info = await this.#consumer?.info().catch(() => null);
      if (info && info.num_pending === 0 && this.#isApplied(info.delivered.stream_seq)) break;
      if (Date.now() - stalledSince > CATCH_UP_MS) {
        // A follower stuck without an error is dropped too: the next list builds the view afresh.
        this.#drop();
        throw new WfError("UNAVAILABLE", `the execution lists are behind the store by ${last - this.#applied} writes and not catching up; retry`);
      }
    }
  }

  /**
   * The bucket's last sequence, asked of the server once for every list that asks in the same
   * event-loop turn: the request goes out after all of them asked, so its answer covers every
   * write stored before any of them did. Many pollers then cost one request per turn, not each one.
   */
  #lastSeq(): Promise<number> {
    this.#nextLastSeq ??= new Promise<number>((resolve, reject) => {
      setImmediate(() => {
        this.#nextLastSeq = null;
        this.jsm.streams.info(`KV_${this.bucket}`).then((info) => resolve(info.state.last_seq), reject);
      });
    });
    return this.#nextLastSeq;
  }

  #isApplied(seq: number): boolean {
    return this.#applied >= seq && this.#pending === 0;
  }

  /** Whether `seq` gets applied within `ms`; rejects when the view is lost meanwhile. */
  #appliedBy(seq: number, ms: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const waiter = {
        seq,
        done: () => (clearTimeout(timer), resolve(true)),
        fail: (err: unknown) => (clearTimeout(timer), reject(err)),
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(false);
      }, ms);
      this.#waiters.push(waiter);
    });
  }

  /** Stops a follower that makes no progress, though its consumer did not end. */
  #drop(): void {
    const messages = this.#messages;
    this.#lose(new WfError("UNAVAILABLE", "the execution lists stopped catching up; the next list builds them again"));
    void messages?.close();
  }

  /** Drops the view (its consumer ended, or it is closed): waiting lists fail, the next one builds it again. */
  #lose(err: unknown): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    this.#owners.clear();
    this.#entries = new ExecutionEntries();
    this.#applied = 0;
    this.#pending = 0;
    this.#generation += 1;
    this.#started = null;
    this.#consumer = null;
    this.#messages = null;
    for (const w of waiters) w.fail(err);
  }
}

/**
 * A copy of `s` that holds no reference to the string it was cut from: V8 keeps a slice of a
 * subject as a view of the whole subject, which would keep every key's full subject in memory.
 */
function detached(s: string): string {
  return Buffer.from(s, "latin1").toString("latin1");
}

function closedError(): WfError {
  return new WfError("UNAVAILABLE", "the execution lists are closed");
}
