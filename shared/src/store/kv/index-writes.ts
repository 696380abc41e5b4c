import { retryTransient } from "../../nats/transient";
import { throwFirstRejection, withRevisions, type IndexKeys } from "./index-keys";
import { keyToken } from "./key-codec";
import type { Known, KnownRecords, Loaded } from "./known-records";
import type { RecentRecords } from "./recent-records";
import { isWrongLastSequence } from "../../nats/wrong-last-sequence";

/**
 * Creates, updates and deletes of one record type, each with the puts and removals of its index
 * keys that keep the index a superset of the truth (docs/architecture.md#index-consistency-on-kv
 * says how, and what can still go wrong).
 */
export class IndexWrites<T extends { id: string }> {
  constructor(
    private readonly known: KnownRecords<T>,
    private readonly keys: IndexKeys,
    private readonly recent: RecentRecords<T>,
  ) {}

  async create(value: T): Promise<number> {
    const token = keyToken(value.id);
    const keys = this.known.layout.keys(value);
    const indexValue = this.known.indexValue(value);
    const [record, ...settled] = await Promise.allSettled([
      this.known.records.create(value),
      ...keys.map((key) => this.keys.put(key, indexValue)),
    ]);
    if (record.status === "rejected") {
      if (!isWrongLastSequence(record.reason)) throw record.reason;
      const current = await this.#dropUnclaimed(token, keys, indexValue, settled);
      // It may be this very create, sent again after its answer was lost while its key puts
      // failed: the keys the stored record claims are put again, or it stays out of every list.
      if (current?.indexValue === indexValue)
        await this.keys.putFailedAgain(keys, indexValue, settled, (key) => current.index.has(key));
      throw this.known.records.exists(value.id);
    }
    // The record is there: a key whose put failed for now (a stream electing its leader) is put
    // again, or the record would stay out of every list, and a second create only finds it exists.
    const puts = await this.keys.putFailedAgain(keys, indexValue, settled);
    throwFirstRejection(puts);
    this.known.wrote(token, {
      version: record.value,
      index: withRevisions(new Map(), keys, puts),
      carried: indexValue,
    });
    this.recent.wrote(token, { value, version: record.value });
    return record.value;
  }

  async update(value: T, expectedVersion: number): Promise<number> {
    const token = keyToken(value.id);
    const before = await this.#knownAt(token, value.id, expectedVersion);
    const keys = this.known.layout.keys(value);
    const indexValue = this.known.indexValue(value);
    const added = keys.filter((key) => !before.index.has(key));
    // Kept keys whose value changes are put again once the record write is stored, never with
    // it: a key then never carries a value that no stored version of its record has.
    const kept = indexValue === before.carried ? [] : keys.filter((key) => before.index.has(key));
    const removed = [...before.index.keys()].filter((key) => !keys.includes(key));

    if (added.length === 0 && kept.length === 0 && removed.length === 0) {
      // The hot path (a step's snapshot): the index is untouched, one write.
      try {
        const version = await this.known.records.update(value, expectedVersion);
        this.known.wrote(token, { version, index: before.index, carried: indexValue });
        this.recent.wrote(token, { value, version });
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
      return retryTransient(() => this.keys.entry(key)).then(
        (entry) => entry?.revision ?? 0,
        () => 0,
      );
    });
    const [record, ...puts] = await Promise.allSettled([
      this.known.records.update(value, expectedVersion),
      ...added.map((key) => this.keys.put(key, indexValue)),
    ]);
    if (record.status === "rejected")
      throw await this.#lostWrite(record.reason, token, value.id, added, indexValue, puts);
    this.recent.wrote(token, { value, version: record.value });
    // The record is stored: keys are put through a cluster's leader election too. One that kept the
    // value the record had (a status) would be left out of its list's pages but counted in its total.
    const addedPuts = await this.keys.putFailedAgain(added, indexValue, puts);
    // Keys whose value is not known here are read first and put only where they differ, bound to
    // the revision read: a writer that read the record too (a cancel) must not overwrite a newer
    // status its holder put meanwhile.
    const keptPuts = await Promise.allSettled(
      kept.map((key) =>
        retryTransient(() =>
          before.carried === null ? this.keys.settle(key, indexValue) : this.keys.put(key, indexValue),
        ),
      ),
    );
    const index = new Map(keys.map((key) => [key, before.index.get(key) ?? 0]));
    const allPut = [...addedPuts, ...keptPuts].every((p) => p.status === "fulfilled");
    this.known.wrote(token, {
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
        if (revision > 0) await retryTransient(() => this.keys.remove(key, revision + 1));
      }),
    );
    return record.value;
  }

  async delete(id: string): Promise<void> {
    const token = keyToken(id);
    const current = await this.known.load(token);
    this.known.forget(token);
    if (!current) {
      this.recent.forget(token);
      return;
    }
    const keys = [...current.index.keys()];
    try {
      // An unwritten record has no record to mark deleted, only its keys.
      const record = current.version === 0 ? [] : [this.known.records.delete(token)];
      await Promise.all([...record, ...keys.map((key) => this.keys.remove(key))]);
    } finally {
      // After the delete, so that a recent read made while it was in flight is not kept either.
      this.recent.forget(token);
    }
  }

  /** The index keys of the record at `expectedVersion`: from memory when we wrote or read it last. */
  async #knownAt(token: string, id: string, expectedVersion: number): Promise<Known> {
    const known = this.known.known(token);
    if (known?.version === expectedVersion) return known;
    const current = await this.known.load(token);
    if (!current) throw this.known.records.notFound(id);
    if (current.version !== expectedVersion) {
      this.known.contested(token);
      throw this.known.records.conflict(id);
    }
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
    return current ? this.known.records.conflict(id) : this.known.records.notFound(id);
  }

  /**
   * Undoes the key puts of a write that lost: a key the stored record does not claim is purged; a
   * key it claims with another value gets the stored value back, unless someone put that key
   * after us (their put is the newer one).
   */
  async #dropUnclaimed(
    token: string,
    keys: readonly string[],
    indexValue: string,
    puts: readonly PromiseSettledResult<number>[],
  ): Promise<Loaded<T> | null> {
    const current = await this.known.load(token, "leader");
    this.known.contested(token);
    await Promise.allSettled(
      keys.map((key, i) => {
        const put = puts[i];
        if (put?.status !== "fulfilled") return;
        if (!current?.index.has(key)) return this.keys.remove(key, put.value + 1);
        if (current.indexValue !== indexValue) return this.keys.put(key, current.indexValue, put.value);
      }),
    );
    return current;
  }
}
