import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { z } from "zod";
import { AlreadyExistsError, CasConflictError, WfError } from "../../errors";
import { isTransient, retryTransient } from "../../nats/transient";
import { pageWindow } from "../paging";
import { parseRecord } from "../parse-record";
import { storedForm, type StoredForm } from "../stored-form";
import type { Page, PageQuery, Versioned } from "../port";
import type { JetStreamPublisher } from "./jetstream-publisher";
import { fromKeyToken, keyToken } from "./key-codec";
import { Lru } from "./lru";
import type { StaleMarkers } from "./bucket-follower";
import { MarkerPurges } from "./marker-purges";
import type { DirectReads, StoredEntry } from "./direct-reads";
import { leaderLast, type LeaderEntry } from "./leader-reads";
import { RecentReads } from "./recent-reads";

/**
 * The two buckets of one record type: the records by id, and the index keys that list them.
 * Hot writes (create, update, index puts) go through `publisher` to the buckets' subjects;
 * reads, deletes and the rare paths use the nats.js KV handles.
 */
export interface KvBuckets {
  jsm: JetStreamManager;
  publisher: JetStreamPublisher;
  records: KV;
  recordsBucket: string;
  index: KV;
  /** The index bucket's name, for purging its keys through the stream API. */
  indexBucket: string;
  /** Reads records by direct get; null for a records bucket that does not allow them. */
  reads: DirectReads | null;
  /** How long a followed layout's delete marker stays before it is purged (MARKER_PURGE_MS; tests set less). */
  markerPurgeMs?: number;
  /** A marker older than this that a view meets was left by a remover that stopped: the view's process purges it (STALE_MARKER_MS; tests set less). */
  staleMarkerMs?: number;
}

/** Ascending or descending on the last two tokens of the index keys (sort field, then id). */
export type KeyOrder = "asc" | "desc";

/**
 * What this process last wrote or read of a record: its version, its index keys, each with the
 * revision of the put that wrote it when this process made that put (else 0), and the value
 * those keys are known to carry.
 */
interface Known {
  version: number;
  index: ReadonlyMap<string, number>;
  /**
   * Known only from this process's own puts. A record read (not written) here may have keys
   * behind it: its writer stopped, or its write's answer was lost though it landed, between the
   * record write and the key puts. Then null, and the next write reads the keys and puts them right.
   */
  carried: string | null;
}

/** How a record type is listed: its index keys, and the one value all of them carry (if any). */
export interface IndexLayout<T> {
  keys(value: T): string[];
  /**
   * A field of the record that lists filter on (a status) carried as the keys' value instead of
   * as a key family of its own: a change of it is one put of the same keys, where a family of
   * its own costs a put of the new key and a purge of the old one. Keys written before a
   * collection carried values hold "" and are read as unknown.
   */
  value?(value: T): string;
  /**
   * Removed keys are marked deleted instead of purged, so that a follower of the bucket (the
   * execution index, the approval lists' view) sees them go; the markers are purged later, by
   * their remover.
   */
  followed?: boolean;
}

/** `indexValue`: the value the record's keys should carry; `bytes`: its stored size (0 for an unwritten one). */
type Loaded<T> = Versioned<T> & Known & { indexValue: string; bytes: number };

/** A listed record, with its stored size for callers that keep it. */
export interface Resolved<T> {
  value: T;
  bytes: number;
}

const KNOWN_CAPACITY = 10_000;
/** How long a followed layout's delete marker stays before it is purged: followers see it well within this. */
const MARKER_PURGE_MS = 60_000;
/** Ten times the purge's delay: a marker this old was left behind, whatever the clocks of its remover and the server. */
const STALE_MARKER_MS = 10 * MARKER_PURGE_MS;

/**
 * One record type on JetStream KV: records keyed by id in one bucket, secondary index keys
 * (values empty; the key is the information) in another, each key ending in a sort token and the
 * id, so a list is one key scan with a subject filter, a sort, and reads of one page of records
 * (executions and an owner's approvals are listed from in-memory views of their index instead:
 * execution-index.ts, key-groups-view.ts).
 *
 * Consistency model. The record is the truth; the index is a hint that reads verify. A listed key
 * counts only if its record exists and, recomputed from the record, still claims that key (and,
 * for a list filtered on the keys' value, still has that value); keys that fail are dropped from
 * the page and from `total` (so a page can come back short, never with a duplicate). One
 * exception: a type with an unwritten source (executions) lists records before they are written
 * (`putKeys`); reads take such a record from that source (the announced execution's start
 * command), at version 0, until the first write creates it. Writers keep the index a superset of
 * the truth where it matters:
 * - Keys a write adds are put concurrently with the record write, so a record is not left without
 *   its keys by a crash between two round trips. If the record write loses (AlreadyExists, CAS),
 *   those keys are purged again unless the stored record claims them, and given the stored
 *   record's value back if it claims them with another.
 * - Keys a write keeps but whose value it changes are put after the record write is stored: a
 *   crash in between, or an answer lost though the write landed, leaves the key carrying the
 *   previous value, so the record is missing from lists filtered on its new value. A process
 *   knows what its keys carry only from its own puts: the next write of one that read the record
 *   instead reads its keys and puts them right (as `settleKeys` does for a writer taking over an
 *   ended record), and a sweep (`repairKeys`) puts right what nobody writes again.
 * - Keys a write removes are purged only after the record write succeeded, and only up to the
 *   key's revision as known before that write (this process's own put, or a read), so a put of
 *   the same key by a later writer (a status going back, say) survives.
 * - Removals are best effort: a crash or error there leaves a stale key that reads skip; it
 *   makes `total` overcount by one on pages that do not show it. Removals purge the key's
 *   messages instead of writing a KV delete marker, because markers stay in the stream and every
 *   later scan of that prefix would have to walk past them; a followed layout's removals write
 *   a marker, which its follower needs to see, and purge it a minute later.
 * - To write one message per update when the keys do not change, the old keys come from a bounded
 *   in-process memory of each record's last version seen, trusted only when that version is the
 *   expected one (another process's write changes the version); otherwise the record is read.
 * What can still go wrong: the record write and its key puts are sent at once, but if the
 * server stores the record and dies before storing a key put, that record is missing from
 * that key's list until a write changes its keys again. Writing the keys first would close this
 * window at the price of a serial round trip on every create and status change.
 */
export class KvCollection<T extends { id: string }> {
  readonly #known = new Lru<string, Known>(KNOWN_CAPACITY);
  readonly #markerPurges: MarkerPurges;
  /** getRecent's server reads in flight, by token, with the RecentReads mark each started at. */
  readonly #recentReads = new Map<string, { mark: number; read: Promise<Versioned<T> | null> }>();
  /** Created by the first getRecent: collections nobody reads that way keep no watch. */
  #recent: RecentReads<T> | null = null;
  readonly #stored: StoredForm<T>;

  constructor(
    private readonly buckets: KvBuckets,
    private readonly type: string,
    private readonly schema: z.ZodType<T>,
    private readonly layout: IndexLayout<T>,
    /**
     * Where a record that is listed but not written yet is read from (an announced execution's
     * start command); such a record is at version 0, and an update at version 0 creates it.
     */
    private readonly unwritten?: (id: string) => Promise<T | null>,
  ) {
    this.#stored = storedForm(schema);
    this.#markerPurges = new MarkerPurges((key, before) => this.#purgeMessages(key, before), buckets.markerPurgeMs ?? MARKER_PURGE_MS);
  }

  /** Records are written in their stored form (stored-form.ts); parseRecord restores what it leaves out. */
  #encode(value: T): string {
    return JSON.stringify(this.#stored(value));
  }

  #indexValue(value: T): string {
    return this.layout.value?.(value) ?? "";
  }

  async create(value: T): Promise<number> {
    const token = keyToken(value.id);
    const keys = this.layout.keys(value);
    const indexValue = this.#indexValue(value);
    const [record, ...settled] = await Promise.allSettled([
      this.#createRecord(token, this.#encode(value)),
      ...keys.map((key) => this.#putKey(key, indexValue)),
    ]);
    if (record.status === "rejected") {
      if (!isWrongLastSequence(record.reason)) throw record.reason;
      const current = await this.#dropUnclaimed(token, keys, indexValue, settled);
      // It may be this very create, sent again after its answer was lost while its key puts
      // failed: the keys the stored record claims are put again, or it stays out of every list.
      if (current?.indexValue === indexValue) await this.#putFailedAgain(keys, indexValue, settled, (key) => current.index.has(key));
      throw new AlreadyExistsError(`${this.type}/${value.id}`);
    }
    // The record is there: a key whose put failed for now (a stream electing its leader) is put
    // again, or the record would stay out of every list, and a second create only finds it exists.
    const puts = await this.#putFailedAgain(keys, indexValue, settled);
    throwFirstRejection(puts);
    this.#known.set(token, { version: record.value, index: withRevisions(new Map(), keys, puts), carried: indexValue });
    this.#recent?.wrote(token, { value, version: record.value });
    return record.value;
  }

  /** Puts again, through transient failures, each of `keys` whose put failed for now (of those `claimed` accepts, when given). */
  #putFailedAgain(
    keys: readonly string[],
    indexValue: string,
    settled: readonly PromiseSettledResult<number>[],
    claimed: (key: string) => boolean = () => true,
  ): Promise<PromiseSettledResult<number>[]> {
    return Promise.all(
      settled.map(async (put, i): Promise<PromiseSettledResult<number>> => {
        if (put.status === "fulfilled" || !isTransient(put.reason) || !claimed(keys[i]!)) return put;
        return retryTransient(() => this.#putKey(keys[i]!, indexValue)).then(
          (revision) => ({ status: "fulfilled", value: revision }),
          (reason: unknown) => ({ status: "rejected", reason }),
        );
      }),
    );
  }

  /**
   * Lists a record that is not written yet, for a type with an unwritten source: its keys are
   * put, carrying its value; reads find the record there until it is written. Each key is put
   * only where it is not yet: these puts go out together with the unwritten source, so one can
   * arrive after the record's first writer put the key with a newer value, which it must not
   * overwrite.
   */
  protected async putKeys(value: T): Promise<void> {
    const indexValue = this.#indexValue(value);
    await Promise.all(
      this.layout.keys(value).map((key) =>
        this.#putKey(key, indexValue, 0).catch((err: unknown) => {
          if (!isWrongLastSequence(err)) throw err;
        }),
      ),
    );
  }

  /** Removes the keys of `value` unless its record was written meanwhile. */
  protected async dropKeysUnlessWritten(value: T): Promise<void> {
    const token = keyToken(value.id);
    const entry = await this.#read(token);
    if (entry?.operation === "PUT") return;
    this.#known.delete(token);
    await Promise.all(this.layout.keys(value).map((key) => this.#purge(key)));
  }

  /**
   * Puts index `keys` right where they disagree with their record: a key whose record is gone
   * (neither written nor unwritten) is removed, and one carrying a value its record has left
   * gets the record's. Each change is bound to the key's revision read here, so a writer's put
   * made meanwhile wins. Returns how many keys it changed.
   */
  protected async repairKeys(keys: readonly string[]): Promise<number> {
    const changed = await Promise.all(
      keys.map(async (key) => {
        const entry = await this.#indexEntry(key);
        if (entry?.operation !== "PUT") return false;
        const current = await this.#load(recordTokenOf(key), "leader");
        try {
          if (!current?.index.has(key)) await this.#purge(key, entry.revision + 1);
          else if (current.indexValue !== entry.string()) await this.#putKey(key, current.indexValue, entry.revision);
          else return false;
          return true;
        } catch (err) {
          if (isWrongLastSequence(err)) return false;
          throw err;
        }
      }),
    );
    return changed.filter(Boolean).length;
  }

  /** Gives each index key of record `id` the value the record gives it, where it carries another (#settleKey). */
  protected async settleKeys(id: string): Promise<void> {
    const token = keyToken(id);
    const current = await this.#load(token, "leader");
    if (!current || current.version === 0) return;
    const keys = [...current.index.keys()];
    const settled = await Promise.allSettled(keys.map((key) => retryTransient(() => this.#settleKey(key, current.indexValue))));
    if (this.#known.get(token)?.version === current.version) {
      const all = settled.every((p) => p.status === "fulfilled");
      this.#known.set(token, {
        version: current.version,
        index: withRevisions(new Map(current.index), keys, settled),
        carried: all ? current.indexValue : null,
      });
    }
    throwFirstRejection(settled);
  }

  async get(id: string): Promise<Versioned<T> | null> {
    const loaded = await this.#load(keyToken(id));
    return loaded && { value: loaded.value, version: loaded.version };
  }

  async getRecent(id: string): Promise<Versioned<T> | null> {
    const token = keyToken(id);
    const recent = (this.#recent ??= new RecentReads<T>(this.buckets.records));
    const hit = recent.get(token);
    if (hit === undefined) return this.#readRecent(recent, id, token);
    if (recent.dueForRefresh(token)) this.#readRecent(recent, id, token).catch(() => undefined);
    return hit;
  }

  /**
   * One server read of `id` for getRecent at a time: callers that miss while it is in flight share
   * it, unless a write or a watch event came since it started (it may have read what that replaced).
   */
  #readRecent(recent: RecentReads<T>, id: string, token: string): Promise<Versioned<T> | null> {
    const mark = recent.mark();
    const inFlight = this.#recentReads.get(token);
    if (inFlight?.mark === mark) return inFlight.read;
    const read = this.get(id).then((loaded) => {
      recent.loaded(token, loaded, mark);
      return loaded;
    });
    const entry = { mark, read };
    this.#recentReads.set(token, entry);
    const done = () => {
      if (this.#recentReads.get(token) === entry) this.#recentReads.delete(token);
    };
    read.then(done, done);
    return read;
  }

  /** For a view of this collection's index: the markers it meets that their remover left behind are purged by this process. */
  protected staleMarkers(): StaleMarkers {
    return {
      olderThanMs: this.buckets.staleMarkerMs ?? STALE_MARKER_MS,
      found: (key, seq) => this.#markerPurges.purgeNow(key, seq + 1),
    };
  }

  /** Stops the watch behind getRecent, if one was started; delete markers not purged yet stay. */
  close(): void {
    this.#recent?.close();
    this.#markerPurges.close();
  }

  async update(value: T, expectedVersion: number): Promise<number> {
    const token = keyToken(value.id);
    const before = await this.#knownAt(token, value.id, expectedVersion);
    const keys = this.layout.keys(value);
    const indexValue = this.#indexValue(value);
    const added = keys.filter((key) => !before.index.has(key));
    // Kept keys whose value changes are put again once the record write is stored, never with
    // it: a key then never carries a value that no stored version of its record has.
    const kept = indexValue === before.carried ? [] : keys.filter((key) => before.index.has(key));
    const removed = [...before.index.keys()].filter((key) => !keys.includes(key));
    const data = this.#encode(value);

    if (added.length === 0 && kept.length === 0 && removed.length === 0) {
      // The hot path (a step's snapshot): the index is untouched, one write.
      try {
        const version = await this.#updateRecord(token, data, expectedVersion);
        this.#known.set(token, { version, index: before.index, carried: indexValue });
        this.#recent?.wrote(token, { value, version });
        return version;
      } catch (err) {
        throw await this.#lostWrite(err, token, value.id, [], indexValue, []);
      }
    }

    // Each purge stops at the revision of the key as we know it (our own put, or else read now,
    // before the record write), so a put of the same key by whoever writes after us survives.
    const bounds = removed.map((key) => {
      const revision = before.index.get(key) ?? 0;
      if (revision > 0) return revision;
      return retryTransient(() => this.#indexEntry(key)).then(
        (entry) => entry?.revision ?? 0,
        () => 0,
      );
    });
    const [record, ...puts] = await Promise.allSettled([
      this.#updateRecord(token, data, expectedVersion),
      ...added.map((key) => this.#putKey(key, indexValue)),
    ]);
    if (record.status === "rejected") throw await this.#lostWrite(record.reason, token, value.id, added, indexValue, puts);
    this.#recent?.wrote(token, { value, version: record.value });
    // The record is stored: keys are put through a cluster's leader election too. One that kept the
    // value the record had (a status) would be left out of its list's pages but counted in its total.
    const addedPuts = await this.#putFailedAgain(added, indexValue, puts);
    // Keys whose value is not known here are read first and put only where they differ, bound to
    // the revision read: a writer that read the record too (a cancel) must not overwrite a newer
    // status its holder put meanwhile.
    const keptPuts = await Promise.allSettled(
      kept.map((key) => retryTransient(() => (before.carried === null ? this.#settleKey(key, indexValue) : this.#putKey(key, indexValue)))),
    );
    const index = new Map(keys.map((key) => [key, before.index.get(key) ?? 0]));
    const allPut = [...addedPuts, ...keptPuts].every((p) => p.status === "fulfilled");
    this.#known.set(token, {
      version: record.value,
      index: withRevisions(withRevisions(index, added, addedPuts), kept, keptPuts),
      carried: allPut ? indexValue : null,
    });
    throwFirstRejection(addedPuts);
    throwFirstRejection(keptPuts);
    // Through a cluster's leader election too: a key left behind would be counted in its list's total.
    await Promise.allSettled(
      removed.map(async (key, i) => {
        const revision = await bounds[i]!;
        if (revision > 0) await retryTransient(() => this.#purge(key, revision + 1));
      }),
    );
    return record.value;
  }

  /**
   * Gives `key` the value `value` unless it carries it already, bound to the revision read; a put
   * made meanwhile by another writer is newer and stays. Returns the key's revision as this
   * process knows it (0 when it lost to such a put).
   */
  async #settleKey(key: string, value: string): Promise<number> {
    const entry = await this.#indexEntry(key);
    if (entry?.operation === "PUT" && entry.string() === value) return entry.revision;
    try {
      return await this.#putKey(key, value, entry?.revision ?? 0);
    } catch (err) {
      if (isWrongLastSequence(err)) return 0;
      throw err;
    }
  }

  async delete(id: string): Promise<void> {
    const token = keyToken(id);
    const current = await this.#load(token);
    this.#known.delete(token);
    if (!current) {
      this.#recent?.forget(token);
      return;
    }
    const keys = [...current.index.keys()];
    try {
      // An unwritten record has no record to mark deleted, only its keys.
      const record = current.version === 0 ? [] : [this.buckets.records.delete(token)];
      await Promise.all([...record, ...keys.map((key) => this.#purge(key))]);
    } finally {
      // After the delete, so that a recent read made while it was in flight is not kept either.
      this.#recent?.forget(token);
    }
  }

  /**
   * One page of the records listed under `filter`, with the number listed in all; with `from`,
   * only keys whose sort token is at least `from` count.
   */
  protected async page(filter: string, order: KeyOrder, query: PageQuery, opts: { from?: string } = {}): Promise<Page<T>> {
    const { skip, limit } = pageWindow(query);
    const rows = await this.#sortedRows(filter, order, opts.from);
    const window = rows.slice(skip, skip + limit);
    const items = (await this.#resolve(window)).map((r) => r.value);
    return { items, total: rows.length - (window.length - items.length) };
  }

  /** Every record listed under `filter`. */
  protected async all(filter: string, order: KeyOrder): Promise<T[]> {
    return (await this.#resolve(await this.#sortedRows(filter, order))).map((r) => r.value);
  }

  /**
   * When the oldest index key matching `filter` was written (the server's clock), or null when
   * none does: one direct read, where a key scan costs a consumer. Removed keys are purged, never
   * marked (but in a followed layout, whose lists do not ask this), so a match is a key that
   * exists (its record may not).
   */
  protected async firstKeyStoredAt(filter: string): Promise<number | null> {
    const { jsm, indexBucket } = this.buckets;
    const first = await jsm.direct.getMessage(`KV_${indexBucket}`, { next_by_subj: `$KV.${indexBucket}.${filter}` });
    return first === null ? null : first.time.getTime();
  }

  async #sortedRows(filter: string, order: KeyOrder, from?: string): Promise<string[]> {
    const rows: { key: string; sort: string; id: string }[] = [];
    for (const key of await this.#scanKeys(filter)) {
      const tokens = key.split(".");
      const sort = fromKeyToken(tokens.at(-2)!);
      if (from === undefined || sort >= from) rows.push({ key, sort, id: fromKeyToken(tokens.at(-1)!) });
    }
    const sign = order === "asc" ? 1 : -1;
    rows.sort((a, b) => sign * (compare(a.sort, b.sort) || compare(a.id, b.id)));
    return rows.map(({ key }) => key);
  }

  /**
   * The index keys matching `filter`: the subjects the index stream holds under it, from the
   * stream's own state (STREAM.INFO with a subject filter, paged by nats.js past 100,000). One
   * request to the stream's leader, where a consumer per list was a consumer created and deleted
   * (in a cluster, a meta-leader proposal each, which timed out under load) and three times slower
   * at 200 keys. Removed keys are purged, never marked, so every subject held is a key that
   * exists; in a followed layout a key removed in the last minute may still be held as its
   * marker, which its record no longer claims, so reads drop it (an approval's execution list).
   */
  async #scanKeys(filter: string): Promise<string[]> {
    const { jsm, indexBucket } = this.buckets;
    const prefix = `$KV.${indexBucket}.`;
    const info = await jsm.streams.info(`KV_${indexBucket}`, { subjects_filter: prefix + filter });
    return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
  }

  /** The records of index `keys`, as `page` resolves them. */
  protected resolveKeys(keys: readonly string[], valueIs?: string): Promise<Resolved<T>[]> {
    return this.#resolve(keys, valueIs);
  }

  /** The records of `rows` that still claim their key (and, with `valueIs`, still carry that value). */
  async #resolve(keys: readonly string[], valueIs?: string): Promise<Loaded<T>[]> {
    const loaded = await Promise.all(keys.map((key) => this.#load(recordTokenOf(key))));
    return loaded.filter((record, i): record is Loaded<T> => !!record?.index.has(keys[i]!) && (valueIs === undefined || record.indexValue === valueIs));
  }

  /**
   * The record's last message, from any replica, or (`leader`) from the stream's leader, for a
   * read whose answer is written back to the index (leader-reads.ts says why).
   */
  #read(token: string, from: "any" | "leader" = "any"): Promise<StoredEntry | null> {
    const { reads, records, recordsBucket, jsm } = this.buckets;
    if (from === "leader") return leaderLast(jsm, recordsBucket, token);
    return reads === null ? records.get(token) : reads.last(recordsBucket, token);
  }

  /** An index key's last message as its leader holds it: every read of one bounds a write of it. */
  #indexEntry(key: string): Promise<LeaderEntry | null> {
    return leaderLast(this.buckets.jsm, this.buckets.indexBucket, key);
  }

  async #load(token: string, from: "any" | "leader" = "any"): Promise<Loaded<T> | null> {
    const entry = await this.#read(token, from);
    if (entry?.operation === "PUT")
      return this.#loaded(token, parseRecord(this.schema, entry.json(), this.type, fromKeyToken(token)), entry.revision, entry.length);
    // A deleted record stays deleted; one never written may be an unwritten one.
    if (entry !== null || this.unwritten === undefined) return null;
    const unwritten = await this.unwritten(fromKeyToken(token));
    if (unwritten !== null) return this.#loaded(token, unwritten, 0, 0);
    // Its writer writes the record before it lets the unwritten source go: read once more.
    const written = await this.#read(token, from);
    return written?.operation === "PUT"
      ? this.#loaded(token, parseRecord(this.schema, written.json(), this.type, fromKeyToken(token)), written.revision, written.length)
      : null;
  }

  #loaded(token: string, value: T, version: number, bytes: number): Loaded<T> {
    // Same version, same keys: keep the put revisions this process may already know of them.
    const known = this.#known.get(token);
    const same = known?.version === version;
    const index = same ? known.index : new Map(this.layout.keys(value).map((key) => [key, 0]));
    const indexValue = this.#indexValue(value);
    // An unwritten record's keys were put by its announcer, with its value; the keys of a layout
    // without values carry "" whoever wrote them.
    const carried = same ? known.carried : version === 0 || this.layout.value === undefined ? indexValue : null;
    this.#known.set(token, { version, index, carried });
    return { value, version, index, carried, indexValue, bytes };
  }

  /** The index keys of the record at `expectedVersion`: from memory when we wrote or read it last. */
  async #knownAt(token: string, id: string, expectedVersion: number): Promise<Known> {
    const known = this.#known.get(token);
    if (known?.version === expectedVersion) return known;
    const current = await this.#load(token);
    if (!current) throw this.#notFound(id);
    if (current.version !== expectedVersion) throw new CasConflictError(`${this.type}/${id}`);
    return current;
  }

  /** Turns a failed record write into the error to report, undoing its speculative index puts. */
  async #lostWrite(
    err: unknown,
    token: string,
    id: string,
    added: readonly string[],
    indexValue: string,
    puts: readonly PromiseSettledResult<number>[],
  ): Promise<unknown> {
    if (!isWrongLastSequence(err)) return err;
    const current = await this.#dropUnclaimed(token, added, indexValue, puts);
    return current ? new CasConflictError(`${this.type}/${id}`) : this.#notFound(id);
  }

  /**
   * Undoes the key puts of a write that lost: a key the stored record does not claim is purged; a
   * key it claims with another value gets the stored value back, unless someone put that key
   * after us (their put is the newer one).
   */
  async #dropUnclaimed(token: string, keys: readonly string[], indexValue: string, puts: readonly PromiseSettledResult<number>[]): Promise<Loaded<T> | null> {
    const current = await this.#load(token, "leader");
    await Promise.allSettled(
      keys.map((key, i) => {
        const put = puts[i];
        if (put?.status !== "fulfilled") return;
        if (!current?.index.has(key)) return this.#purge(key, put.value + 1);
        if (current.indexValue !== indexValue) return this.#putKey(key, current.indexValue, put.value);
      }),
    );
    return current;
  }

  /*
   * KV bucket B is stream KV_B with subjects $KV.B.<key> (the KV layout spec, ADR-8). Keys come
   * from keyToken and the layouts, so they are valid subject tokens without nats.js's checks.
   */

  /** Creates the record at `token`; like KV create, also over a deleted record's marker. */
  async #createRecord(token: string, data: string): Promise<number> {
    try {
      return (await this.buckets.publisher.publish(`$KV.${this.buckets.recordsBucket}.${token}`, data, { expect: { lastSubjectSequence: 0 } })).seq;
    } catch (err) {
      // The id exists, or was deleted (its delete marker is the last message): nats.js tells which.
      if (isWrongLastSequence(err)) return this.buckets.records.create(token, data);
      throw err;
    }
  }

  async #updateRecord(token: string, data: string, expectedVersion: number): Promise<number> {
    const subject = `$KV.${this.buckets.recordsBucket}.${token}`;
    return (await this.buckets.publisher.publish(subject, data, { expect: { lastSubjectSequence: expectedVersion } })).seq;
  }

  /** Puts `key` carrying `value`; with `after`, only if the key's last put is still that revision. */
  async #putKey(key: string, value: string, after?: number): Promise<number> {
    const subject = `$KV.${this.buckets.indexBucket}.${key}`;
    return (await this.buckets.publisher.publish(subject, value, after === undefined ? undefined : { expect: { lastSubjectSequence: after } })).seq;
  }

  /**
   * Removes a key's messages (before revision `before`, when given) without a delete marker; a
   * followed layout's key gets a marker instead (unless put again after `before`), which is
   * purged a while later, once followers have seen it.
   */
  async #purge(key: string, before?: number): Promise<void> {
    if (!this.layout.followed) return this.#purgeMessages(key, before);
    let marker: number;
    try {
      const subject = `$KV.${this.buckets.indexBucket}.${key}`;
      marker = (
        await this.buckets.publisher.publish(subject, "", { kvDelete: true, ...(before === undefined ? {} : { expect: { lastSubjectSequence: before - 1 } }) })
      ).seq;
    } catch (err) {
      if (isWrongLastSequence(err)) return;
      throw err;
    }
    // Purged up to the marker: a put made since stays.
    this.#markerPurges.add(key, marker + 1);
  }

  async #purgeMessages(key: string, before?: number): Promise<void> {
    const { jsm, indexBucket } = this.buckets;
    const filter = `$KV.${indexBucket}.${key}`;
    await jsm.streams.purge(`KV_${indexBucket}`, before === undefined ? { filter } : { filter, seq: before });
  }

  #notFound(id: string): WfError {
    return new WfError("NOT_FOUND", `${this.type}/${id} does not exist`);
  }
}

export function isWrongLastSequence(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** Records the revisions of the puts that succeeded (`puts[i]` wrote `keys[i]`); 0 for the rest. */
function withRevisions(index: Map<string, number>, keys: readonly string[], puts: readonly PromiseSettledResult<number>[]): Map<string, number> {
  keys.forEach((key, i) => {
    const put = puts[i];
    index.set(key, put?.status === "fulfilled" ? put.value : 0);
  });
  return index;
}

/** The token of the record an index key lists: index keys end in it. */
export function recordTokenOf(key: string): string {
  return key.slice(key.lastIndexOf(".") + 1);
}

function throwFirstRejection(results: readonly PromiseSettledResult<unknown>[]): void {
  for (const result of results) if (result.status === "rejected") throw result.reason;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
