import type { Versioned } from "../port";
import { decodeFound, type FoundAnswer, type StoredEntry } from "./direct-reads";
import { fromKeyToken, keyToken } from "./key-codec";
import type { IndexLayout } from "./layouts";
import { Lru } from "../../pools/lru";
import type { ReadFrom, RecordBucket } from "./record-bucket";

/**
 * What this process last wrote or read of a record: its version, its index keys, each with the
 * revision of the put that wrote it when this process made that put (else 0), and the value
 * those keys are known to carry.
 */
export interface Known {
  version: number;
  index: ReadonlyMap<string, number>;
  /**
   * Known only from this process's own puts. A record read (not written) here may have keys
   * behind it: its writer stopped, or its write's answer was lost though it landed, between the
   * record write and the key puts. Then null, and the next write reads the keys and puts them right.
   */
  carried: string | null;
}

/** `indexValue`: the value the record's keys should carry; `bytes`: its stored size (0 for an unwritten one). */
export type Loaded<T> = Versioned<T> & Known & { indexValue: string; bytes: number };

const KNOWN_CAPACITY = 10_000;

/**
 * The reads of one record type's records, each remembered (`Known`) in a bounded memory, so that
 * an update whose expected version is the one remembered writes one message without reading first.
 */
export class KnownRecords<T extends { id: string }> {
  readonly #known = new Lru<string, Known>(KNOWN_CAPACITY);
  /** Records a write of this process lost, until it writes them again: read at the leader (see #read). */
  readonly #contested = new Lru<string, true>(KNOWN_CAPACITY);

  constructor(
    readonly records: RecordBucket<T>,
    readonly layout: IndexLayout<T>,
    /**
     * Where a record that is listed but not written yet is read from (an announced execution's
     * start command); such a record is at version 0, and an update at version 0 creates it.
     */
    private readonly unwritten?: (id: string) => Promise<T | null>,
  ) {}

  indexValue(value: T): string {
    return this.layout.value?.(value) ?? "";
  }

  known(token: string): Known | undefined {
    return this.#known.get(token);
  }

  remember(token: string, known: Known): void {
    this.#known.set(token, known);
  }

  /** `remember`, for a record this process has just written: no longer contested. */
  wrote(token: string, known: Known): void {
    this.#known.set(token, known);
    this.#contested.delete(token);
  }

  /** A write of this process lost to what the leader holds: reads go there until this process writes the record. */
  contested(token: string): void {
    this.#contested.set(token, true);
  }

  forget(token: string): void {
    this.#known.delete(token);
  }

  /** `atLeast`: a revision of the record a reader has seen; the answer is never older (monotonic reads). */
  async get(id: string, atLeast = 0, from: ReadFrom = "any"): Promise<Versioned<T> | null> {
    const loaded = await this.load(keyToken(id), from, atLeast);
    return loaded && { value: loaded.value, version: loaded.version };
  }

  /**
   * `get` where a miss costs this process what a find costs: `decoy`, the answer for a stored
   * record of this type, is decoded and loaded as a found record is, then dropped. For records
   * whose existence must not show through the time a read takes (API keys looked up by a
   * presented id). The server's part stays uneven: it answers for a missing key without reading
   * and sending a record.
   */
  async getEvenly(id: string, decoy: FoundAnswer): Promise<Versioned<T> | null> {
    const found = await this.get(id);
    if (found) return found;
    const entry = decodeFound(decoy);
    this.#loaded(decoy.key, await this.records.parse(decoy.key, entry), entry.revision, entry.length);
    return null;
  }

  async load(token: string, from: ReadFrom = "any", atLeast = 0): Promise<Loaded<T> | null> {
    const entry = await this.#read(token, from, atLeast);
    if (entry?.operation === "PUT")
      return this.#loaded(token, await this.records.parse(token, entry), entry.revision, entry.length);
    // A deleted record stays deleted; one never written may be an unwritten one.
    if (entry !== null || this.unwritten === undefined) return null;
    const unwritten = await this.unwritten(fromKeyToken(token));
    if (unwritten !== null) return this.#loaded(token, unwritten, 0, 0);
    // Its writer writes the record before it lets the unwritten source go: read once more, at the
    // leader, which holds every write acknowledged (a replica may not have it yet).
    const written = await this.records.read(token, "leader");
    return written?.operation === "PUT"
      ? this.#loaded(token, await this.records.parse(token, written), written.revision, written.length)
      : null;
  }

  /**
   * A replica's answer older than `atLeast`, or than what this process last wrote or read of the
   * record, is read again at the stream's leader: replicas apply writes at their own pace, and
   * one behind would take a reader back to a status its execution has left.
   *
   * A contested record is read at the leader whatever a replica holds. A replica can also be
   * ahead: nats-server 2.9 was seen to keep answering direct gets with a write its cut-off leader
   * took and the cluster never committed, above every version the leader reports. A writer that
   * read it there loses at the leader, reads it there again, and would lose for good.
   */
  async #read(token: string, from: ReadFrom, atLeast: number): Promise<StoredEntry | null> {
    if (from === "leader" || this.#contested.get(token)) return this.records.read(token, "leader");
    const entry = await this.records.read(token, "any");
    const floor = Math.max(atLeast, this.#known.get(token)?.version ?? 0);
    if ((entry?.revision ?? 0) >= floor) return entry;
    const latest = await this.records.read(token, "leader");
    // Gone at the leader too (purged, or expired): nothing of it to keep reads above.
    if (latest === null) this.#known.delete(token);
    return latest;
  }

  #loaded(token: string, value: T, version: number, bytes: number): Loaded<T> {
    // Same version, same keys: keep the put revisions this process may already know of them.
    const known = this.#known.get(token);
    const same = known?.version === version;
    const index = same ? known.index : new Map(this.layout.keys(value).map((key) => [key, 0]));
    const indexValue = this.indexValue(value);
    // An unwritten record's keys were put by its announcer, with its value; the keys of a layout
    // without values carry "" whoever wrote them.
    const carried = same ? known.carried : version === 0 || this.layout.value === undefined ? indexValue : null;
    this.#known.set(token, { version, index, carried });
    return { value, version, index, carried, indexValue, bytes };
  }
}
