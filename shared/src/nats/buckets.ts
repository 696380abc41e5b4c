import { jetstreamManager, StorageType, StoreCompression } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { nanos } from "@nats-io/nats-core";
import { Objm, type ObjectStore } from "@nats-io/obj";
import { keptConfig, placementError, placementOption, reconcileStream, type StreamPlacement } from "./placement";
import { retryRacedCreate } from "./streams";
import { whileStarting } from "./while-starting";

export interface KvBucketSpec {
  /** Values kept per key (1: CAS against the latest revision is all a record needs). */
  history: number;
  /** Age after which an entry expires; none when unset. */
  ttlMs?: number;
  /** The bucket keeps data for long (records, not counters or sessions): kept as the placement's compression says. */
  keeps?: boolean;
}

/**
 * Opens a KV bucket, creating it at `placement`, and reconciles an existing one to the current
 * placement, TTL and compression (nats.js only sets them on creation). Retried while JetStream is not ready.
 */
export function openKvBucket(
  nc: NatsConnection,
  name: string,
  spec: KvBucketSpec,
  placement: StreamPlacement,
): Promise<KV> {
  const kept = spec.keeps ? keptConfig(placement) : {};
  return whileStarting(async () => {
    const kv = await created(name, placement, () =>
      new Kvm(nc).create(name, {
        history: spec.history,
        replicas: placement.replicas,
        ...placementOption(placement),
        ...(spec.ttlMs ? { ttl: spec.ttlMs } : {}),
        ...createdCompression(kept),
      }),
    );
    await reconcileStream(await jetstreamManager(nc), `KV_${name}`, placement, {
      max_age: spec.ttlMs ? nanos(spec.ttlMs) : 0,
      ...kept,
    });
    return kv;
  });
}

/**
 * Opens an object store bucket (file storage) the same way. Its files are kept as the placement's compression says:
 * S2 passes over what does not compress (an image, an archive) at little cost and takes text down to a fraction.
 */
export function openObjectBucket(nc: NatsConnection, name: string, placement: StreamPlacement): Promise<ObjectStore> {
  const kept = keptConfig(placement);
  return whileStarting(async () => {
    const bucket = await created(name, placement, () =>
      new Objm(nc).create(name, {
        storage: StorageType.File,
        replicas: placement.replicas,
        ...placementOption(placement),
        ...createdCompression(kept),
      }),
    );
    await reconcileStream(await jetstreamManager(nc), `OBJ_${name}`, placement, kept);
    return bucket;
  });
}

/** A stream's `compression` as nats.js's KV and object store options take it at creation: a flag. */
function createdCompression(kept: { compression?: StoreCompression }): { compression?: boolean } {
  return kept.compression === undefined ? {} : { compression: kept.compression === StoreCompression.S2 };
}

/**
 * Creates the bucket, or opens it as another process just created it: two creates at once can
 * lose to each other's half-made stream ("subjects overlap"), and the next try finds it whole.
 */
function created<T>(name: string, placement: StreamPlacement, create: () => Promise<T>): Promise<T> {
  return retryRacedCreate(create).catch((err: unknown) => {
    throw placementError(err, `bucket ${name}`, placement);
  });
}
