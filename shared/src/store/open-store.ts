import type { NatsConnection } from "@nats-io/nats-core";
import { openKvStore } from "./kv/open-kv-store";
import { openMongoStore } from "./mongo/open-mongo-store";
import type { Store } from "./port";

export type StoreOptions =
  | { kind: "kv"; nc: NatsConnection; namespace: string }
  | { kind: "mongodb"; uri: string; database: string; namespace: string };

/** Opens the configured adapter; `namespace` prefixes its buckets or collections (`wf` in production). */
export function openStore(opts: StoreOptions): Promise<Store> {
  return opts.kind === "kv"
    ? openKvStore(opts.nc, opts.namespace)
    : openMongoStore(opts.uri, opts.database, opts.namespace);
}
