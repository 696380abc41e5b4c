import type { NatsConnection } from "@nats-io/nats-core";
import type { StoreCompression } from "../nats/compression";
import { ONE_REPLICA, streamPlacement, type StreamPlacement } from "../nats/placement";
import { openKvStore } from "./kv/open-kv-store";
import { openMongoStore } from "./mongo/open-mongo-store";
import type { Store } from "./port";

export type StoreOptions =
  /** `placement`: one replica when unset (a lone server). */
  | { kind: "kv"; nc: NatsConnection; namespace: string; placement?: StreamPlacement }
  | { kind: "mongodb"; uri: string; database: string; namespace: string };

/** Opens the configured adapter; `namespace` prefixes its buckets or collections (`wf` in production). */
export function openStore(opts: StoreOptions): Promise<Store> {
  return opts.kind === "kv"
    ? openKvStore(opts.nc, opts.namespace, opts.placement ?? ONE_REPLICA)
    : openMongoStore(opts.uri, opts.database, opts.namespace);
}

/** What picks the adapter: MongoDB when MONGODB_URI is set, else JetStream KV on the service's NATS. */
export interface StoreSettings {
  MONGODB_URI?: string | undefined;
  MONGODB_DATABASE: string;
  WF_NAMESPACE: string;
  /** `auto` when unset. */
  WF_REPLICAS?: "auto" | number;
  WF_PLACEMENT_TAGS?: string[] | undefined;
  /** `s2` when unset. */
  WF_STORE_COMPRESSION?: StoreCompression | undefined;
}

/** The store as the service opens it: every process (services, CLI) picks the adapter here. */
export function openConfiguredStore(settings: StoreSettings, nc: NatsConnection): Promise<Store> {
  return settings.MONGODB_URI
    ? openStore({
        kind: "mongodb",
        uri: settings.MONGODB_URI,
        database: settings.MONGODB_DATABASE,
        namespace: settings.WF_NAMESPACE,
      })
    : openStore({
        kind: "kv",
        nc,
        namespace: settings.WF_NAMESPACE,
        placement: streamPlacement(
          {
            WF_REPLICAS: settings.WF_REPLICAS ?? "auto",
            WF_PLACEMENT_TAGS: settings.WF_PLACEMENT_TAGS,
            WF_STORE_COMPRESSION: settings.WF_STORE_COMPRESSION,
          },
          nc,
        ),
      });
}
