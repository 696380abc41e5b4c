import { jetstreamManager, StorageType } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { nanos } from "@nats-io/nats-core";
import { Objm, type ObjectStore } from "@nats-io/obj";
import { ConfigError } from "../errors/wf-error";
import { reconcileStream, type StreamPlacement } from "./placement";
import { whileStarting } from "./while-starting";

export interface KvBucketSpec {
  /** Values kept per key (1: CAS against the latest revision is all a record needs). */
  history: number;
  /** Age after which an entry expires; none when unset. */
  ttlMs?: number;
}

/**
 * Opens a KV bucket, creating it at `placement`, and reconciles an existing one to the current
 * placement and TTL (nats.js only sets them on creation). Retried while JetStream is not ready.
 */
export function openKvBucket(nc: NatsConnection, name: string, spec: KvBucketSpec, placement: StreamPlacement): Promise<KV> {
  return whileStarting(async () => {
    const kv = await created(name, placement, () =>
      new Kvm(nc).create(name, {
        history: spec.history,
        replicas: placement.replicas,
        ...(placement.tags.length ? { placement: { cluster: "", tags: placement.tags } } : {}),
        ...(spec.ttlMs ? { ttl: spec.ttlMs } : {}),
      }),
    );
    await reconcileStream(await jetstreamManager(nc), `KV_${name}`, placement, { max_age: spec.ttlMs ? nanos(spec.ttlMs) : 0 });
    return kv;
  });
}

/** Opens an object store bucket (file storage) the same way. */
export function openObjectBucket(nc: NatsConnection, name: string, placement: StreamPlacement): Promise<ObjectStore> {
  return whileStarting(async () => {
    const bucket = await created(name, placement, () =>
      new Objm(nc).create(name, {
        storage: StorageType.File,
        replicas: placement.replicas,
        ...(placement.tags.length ? { placement: { cluster: "", tags: placement.tags } } : {}),
      }),
    );
    await reconcileStream(await jetstreamManager(nc), `OBJ_${name}`, placement);
    return bucket;
  });
}

/** A creation the servers cannot place says which knob to turn, not only "insufficient resources". */
async function created<T>(name: string, placement: StreamPlacement, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    if (!/insufficient resources|no suitable peers|not supported in non-clustered/i.test(String((err as Error)?.message ?? err))) throw err;
    throw new ConfigError(
      `cannot create bucket ${name} with ${placement.replicas} replica(s)${placement.tags.length ? ` on tags ${placement.tags.join(",")}` : ""}: ` +
        `the JetStream servers cannot hold that many copies. Set WF_REPLICAS to at most the number of JetStream servers (1 for a lone server)`,
    );
  }
}
