import type { z } from "zod";
import type { Repo, Versioned } from "../port";
import type { RecordForm } from "../stored-form";
import { IndexKeys } from "./index-keys";
import { PurgedRemovals, type KeyRemovals } from "./index-removals";
import { IndexWrites } from "./index-writes";
import { KnownRecords } from "./known-records";
import type { KvBuckets } from "./kv-buckets";
import type { IndexLayout } from "./layouts";
import { RecordBucket } from "./record-bucket";
import { RecentRecords } from "./recent-records";

// One record type on JetStream KV: records by id in one bucket, index keys in another. The record
// is the truth and the index a hint that reads verify; how writers keep it a superset of the truth,
// and what can still go wrong: docs/architecture.md#index-consistency-on-kv (under Storage).

/** The parts of one record type's store, which its repository holds as far as it uses them. */
export interface KvParts<T extends { id: string }> {
  buckets: KvBuckets;
  known: KnownRecords<T>;
  keys: IndexKeys;
  recent: RecentRecords<T>;
  writes: IndexWrites<T>;
}

export function kvParts<T extends { id: string }>(
  buckets: KvBuckets,
  type: string,
  schema: z.ZodType<T>,
  layout: IndexLayout<NoInfer<T>>,
  opts: {
    /** How removed keys go: purged, unless a view follows the index (MarkedRemovals). */
    removals?: KeyRemovals;
    /** Where a record listed before it is written is read from (KnownRecords). */
    unwritten?: (id: string) => Promise<T | null>;
    /** What the records leave out of their stored form beyond their defaults. */
    form?: RecordForm;
  } = {},
): KvParts<T> {
  const known = new KnownRecords(new RecordBucket(buckets, type, schema, opts.form), layout, opts.unwritten);
  const keys = new IndexKeys(buckets, opts.removals ?? new PurgedRemovals(buckets));
  const recent = new RecentRecords<T>(buckets.records);
  return { buckets, known, keys, recent, writes: new IndexWrites(known, keys, recent) };
}

/** The repository every record type has (the port's `Repo`); lists and repairs are parts its subclasses hold. */
export class KvCollection<T extends { id: string }> implements Repo<T> {
  readonly #parts: KvParts<T>;

  constructor(parts: KvParts<T>) {
    this.#parts = parts;
  }

  create(value: T): Promise<number> {
    return this.#parts.writes.create(value);
  }

  get(id: string, atLeast?: number): Promise<Versioned<T> | null> {
    return this.#parts.known.get(id, atLeast);
  }

  /** At the bucket's leader (ExecutionRepo.getForWrite). */
  getForWrite(id: string): Promise<Versioned<T> | null> {
    return this.#parts.known.get(id, 0, "leader");
  }

  getRecent(id: string): Promise<Versioned<T> | null> {
    return this.#parts.recent.get(id, (recentId) => this.get(recentId));
  }

  update(value: T, expectedVersion: number): Promise<number> {
    return this.#parts.writes.update(value, expectedVersion);
  }

  delete(id: string): Promise<void> {
    return this.#parts.writes.delete(id);
  }

  /** Stops the watch behind getRecent, if one was started; delete markers not purged yet stay. */
  close(): void {
    this.#parts.recent.close();
    this.#parts.keys.close();
  }
}
