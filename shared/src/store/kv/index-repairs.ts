import { retryTransient } from "../../nats/transient";
import { recordTokenOf, throwFirstRejection, withRevisions, type IndexKeys } from "./index-keys";
import { keyToken } from "./key-codec";
import type { KnownRecords } from "./known-records";
import { isWrongLastSequence } from "../../nats/wrong-last-sequence";

/**
 * The index writes made apart from a record's own writes: listing a record before it is written
 * (for a type with an unwritten source, executions), withdrawing that, and putting right keys
 * that disagree with their record (a takeover, a sweep).
 */
export class IndexRepairs<T extends { id: string }> {
  constructor(
    private readonly known: KnownRecords<T>,
    private readonly keys: IndexKeys,
  ) {}

  /**
   * Lists a record that is not written yet: its keys are put, carrying its value; reads find the
   * record in the unwritten source until it is written. Each key is put only where it is not
   * yet: these puts go out together with the unwritten source, so one can arrive after the
   * record's first writer put the key with a newer value, which it must not overwrite.
   */
  async putKeys(value: T): Promise<void> {
    const indexValue = this.known.indexValue(value);
    await Promise.all(
      this.known.layout.keys(value).map((key) =>
        this.keys.put(key, indexValue, 0).catch((err: unknown) => {
          if (!isWrongLastSequence(err)) throw err;
        }),
      ),
    );
  }

  /** Whether record `id` is written, as the bucket's leader holds it (a replica may lag the write). */
  async written(id: string): Promise<boolean> {
    return (await this.known.records.read(keyToken(id), "leader"))?.operation === "PUT";
  }

  /** Removes the keys of `value` unless its record was written meanwhile. */
  async dropKeysUnlessWritten(value: T): Promise<void> {
    if (await this.written(value.id)) return;
    const token = keyToken(value.id);
    this.known.forget(token);
    await Promise.all(this.known.layout.keys(value).map((key) => this.keys.remove(key)));
  }

  /**
   * Puts index `keys` right where they disagree with their record: a key whose record is gone
   * (neither written nor unwritten) is removed, and one carrying a value its record has left
   * gets the record's. Each change is bound to the key's revision read here, so a writer's put
   * made meanwhile wins. Returns how many keys it changed.
   */
  async repairKeys(keys: readonly string[]): Promise<number> {
    const changed = await Promise.all(
      keys.map(async (key) => {
        const entry = await this.keys.entry(key);
        if (entry?.operation !== "PUT") return false;
        const current = await this.known.load(recordTokenOf(key), "leader");
        try {
          if (!current?.index.has(key)) await this.keys.remove(key, entry.revision + 1);
          else if (current.indexValue !== entry.string()) await this.keys.put(key, current.indexValue, entry.revision);
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

  /** Gives each index key of record `id` the value the record gives it, where it carries another (IndexKeys.settle). */
  async settleKeys(id: string): Promise<void> {
    const token = keyToken(id);
    const current = await this.known.load(token, "leader");
    if (!current || current.version === 0) return;
    const keys = [...current.index.keys()];
    const settled = await Promise.allSettled(
      keys.map((key) => retryTransient(() => this.keys.settle(key, current.indexValue))),
    );
    if (this.known.known(token)?.version === current.version) {
      const all = settled.every((p) => p.status === "fulfilled");
      this.known.remember(token, {
        version: current.version,
        index: withRevisions(new Map(current.index), keys, settled),
        carried: all ? current.indexValue : null,
      });
    }
    throwFirstRejection(settled);
  }
}
