import type { StaleMarkers } from "./bucket-follower";
import type { KvBuckets } from "./kv-buckets";
import { MarkerPurges } from "./marker-purges";
import { isWrongLastSequence } from "../../nats/wrong-last-sequence";

/** How long a followed index's delete marker stays before it is purged: followers see it well within this. */
const MARKER_PURGE_MS = 60_000;
/**
 * Ten times the purge's delay: a marker this old was left behind, whatever the clocks of its remover and the server.
 */
const STALE_MARKER_MS = 10 * MARKER_PURGE_MS;

/** How an index's removed keys go: `before`, when given, is the revision a later put of the key has. */
export interface KeyRemovals {
  remove(key: string, before?: number): Promise<void>;
  /** Forgets what was not done yet. */
  close(): void;
}

/**
 * Removes a key's messages without a delete marker: a marker stays in the stream, and every later
 * scan of that prefix would have to walk past it.
 */
export class PurgedRemovals implements KeyRemovals {
  constructor(private readonly buckets: Pick<KvBuckets, "jsm" | "indexBucket">) {}

  async remove(key: string, before?: number): Promise<void> {
    const { jsm, indexBucket } = this.buckets;
    const filter = `$KV.${indexBucket}.${key}`;
    await jsm.streams.purge(`KV_${indexBucket}`, before === undefined ? { filter } : { filter, seq: before });
  }

  close(): void {}
}

/**
 * The removals of an index that a view follows (the execution index, the approval lists): a
 * removed key gets a delete marker, which the follower needs to see it go, and the marker is
 * purged a minute later (marker-purges.ts), unless the key was put again meanwhile.
 */
export class MarkedRemovals implements KeyRemovals {
  readonly #purges: MarkerPurges;
  readonly #purged: PurgedRemovals;

  constructor(private readonly buckets: KvBuckets) {
    this.#purged = new PurgedRemovals(buckets);
    this.#purges = new MarkerPurges(
      (key, before) => this.#purged.remove(key, before),
      buckets.markerPurgeMs ?? MARKER_PURGE_MS,
    );
  }

  async remove(key: string, before?: number): Promise<void> {
    let marker: number;
    try {
      const subject = `$KV.${this.buckets.indexBucket}.${key}`;
      const expect = before === undefined ? {} : { expect: { lastSubjectSequence: before - 1 } };
      marker = (await this.buckets.publisher.publish(subject, "", { kvDelete: true, ...expect })).seq;
    } catch (err) {
      if (isWrongLastSequence(err)) return;
      throw err;
    }
    // Purged up to the marker: a put made since stays.
    this.#purges.add(key, marker + 1);
  }

  /** For a view of this index: the markers it meets that their remover left behind are purged by this process. */
  staleMarkers(): StaleMarkers {
    return {
      olderThanMs: this.buckets.staleMarkerMs ?? STALE_MARKER_MS,
      found: (key, seq) => this.#purges.purgeNow(key, seq + 1),
    };
  }

  /** Delete markers not purged yet stay. */
  close(): void {
    this.#purges.close();
  }
}
