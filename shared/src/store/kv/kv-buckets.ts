import type { JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { DirectReads } from "./direct-reads";
import type { JetStreamPublisher } from "./jetstream-publisher";

/**
 * The two buckets of one record type: the records by id, and the index keys that list them. Hot
 * writes (create, update, index puts) go through `publisher` to the buckets' subjects; reads, deletes
 * and the rare paths use the nats.js KV handles. Bucket B is stream KV_B with subjects $KV.B.<key>
 * (ADR-8); keys come from keyToken and the layouts, so they are valid subject tokens unchecked.
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
  /**
   * A marker older than this that a view meets was left by a remover that stopped: the view's process purges it
   * (STALE_MARKER_MS; tests set less).
   */
  staleMarkerMs?: number;
}
