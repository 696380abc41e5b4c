import {
  StoreCompression as StreamCompression,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamManager,
  type Placement,
  type StreamConfig,
  type StreamInfo,
} from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { ConfigError } from "../errors/wf-error";
import { serverHasCompression, type StoreCompression } from "./compression";
import { retryWhile } from "./transient";

/** Where the service's streams and buckets live: how many copies, on which servers, and how those keeping data do. */
export interface StreamPlacement {
  replicas: number;
  /** Server tags every copy must carry; empty: any server. */
  tags: string[];
  /** How the streams and buckets that keep data keep it on disk; unset on a server without compression. */
  compression?: StoreCompression;
}

/** One copy anywhere: a single server, and tests. */
export const ONE_REPLICA: StreamPlacement = Object.freeze({ replicas: 1, tags: [] as string[] }) as StreamPlacement;

/**
 * WF_REPLICAS, WF_PLACEMENT_TAGS and WF_STORE_COMPRESSION against the server connected to: `auto` is 3 in a cluster
 * (a server that routes to others reports its cluster's name) and 1 on a lone server; compression only where the
 * server has it.
 */
export function streamPlacement(
  settings: {
    WF_REPLICAS: "auto" | number;
    WF_PLACEMENT_TAGS?: string[] | undefined;
    WF_STORE_COMPRESSION?: StoreCompression | undefined;
  },
  nc: NatsConnection,
): StreamPlacement {
  const replicas = settings.WF_REPLICAS === "auto" ? (nc.info?.cluster ? 3 : 1) : settings.WF_REPLICAS;
  return {
    replicas,
    tags: settings.WF_PLACEMENT_TAGS ?? [],
    ...(serverHasCompression(nc.info?.version) ? { compression: settings.WF_STORE_COMPRESSION ?? "s2" } : {}),
  };
}

/** The `compression` of a stream that keeps data: none on a server without it. */
export function keptConfig(p: StreamPlacement): { compression?: StreamCompression } {
  if (p.compression === undefined) return {};
  return { compression: p.compression === "s2" ? StreamCompression.S2 : StreamCompression.None };
}

/** The stream configuration fields a placement sets. */
export function placementConfig(p: StreamPlacement): { num_replicas: number; placement?: Placement } {
  return { num_replicas: p.replicas, ...placementOption(p) };
}

/** The `placement` option of streams, KV buckets and object stores: none without tags. */
export function placementOption(p: StreamPlacement): { placement?: Placement } {
  return p.tags.length > 0 ? { placement: { tags: p.tags } as Placement } : {};
}

/** What servers that cannot hold a placement answer. */
const REFUSED = /insufficient resources|no suitable peers|not supported in non-clustered/i;

/**
 * A creation or update the servers refused for its placement, said as the knobs to turn (not
 * only "insufficient resources"); any other error as it is.
 */
export function placementError(err: unknown, what: string, p: StreamPlacement): unknown {
  const reason = String((err as Error)?.message ?? err);
  if (!REFUSED.test(reason)) return err;
  return new ConfigError(
    `cannot keep ${what} at ${p.replicas} replica(s)${p.tags.length ? ` on tags ${p.tags.join(",")}` : ""}: ${reason}. ` +
      `Set WF_REPLICAS to at most the number of JetStream servers (1 for a lone server), and WF_PLACEMENT_TAGS to tags they carry`,
  );
}

/** The limits a stream is kept at, beside its placement: reconciled when they changed. */
export interface StreamLimits {
  /** Nanoseconds; 0 = no limit. */
  max_age?: number;
  compression?: StreamCompression;
}

/**
 * Brings an existing stream to `placement` and `limits` when it differs: a stream created by an
 * older configuration (one replica before the cluster, a shorter TTL) follows the current one.
 * The server moves or copies the data itself. A refusal stops the start, naming the stream,
 * since a service running on streams other than configured would keep less than asked; only a
 * service without the grant to change it (one that reads it) leaves it to those that write it.
 */
export async function reconcileStream(
  jsm: JetStreamManager,
  name: string,
  placement: StreamPlacement,
  limits: StreamLimits = {},
): Promise<void> {
  const current = (await infoOfCreated(jsm, name)).config;
  const want: Partial<StreamConfig> = { ...placementConfig(placement), ...limits };
  if (!differs(current, want)) return;
  try {
    await jsm.streams.update(name, want);
  } catch (err) {
    // A service that only reads this bucket may not change it: its writers bring it up to date.
    if (/permissions violation/i.test(String((err as Error)?.message ?? err))) return;
    throw new ConfigError(
      `cannot bring stream ${name} to ${placement.replicas} replica(s)${placement.tags.length ? ` on tags ${placement.tags.join(",")}` : ""}: ${String((err as Error)?.message ?? err)}. ` +
        `Check WF_REPLICAS (a lone server holds 1) and WF_PLACEMENT_TAGS against the servers' tags`,
    );
  }
}

/** How long a stream just created may stay unknown to its info request. */
const CREATED_VISIBLE_MS = 5_000;

/**
 * The info of a stream this process has just created or opened. On a loaded cluster, the info
 * request right after the create can find no stream yet (its group still forming): the suite
 * saw it once in 1,500 tests. It is asked again for a few seconds before that counts.
 */
function infoOfCreated(jsm: JetStreamManager, name: string): Promise<StreamInfo> {
  const notFound = (err: unknown) => err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound;
  return retryWhile(() => jsm.streams.info(name), notFound, CREATED_VISIBLE_MS);
}

function differs(current: StreamConfig, want: Partial<StreamConfig>): boolean {
  if (want.num_replicas !== undefined && (current.num_replicas || 1) !== want.num_replicas) return true;
  if (want.max_age !== undefined && (current.max_age ?? 0) !== want.max_age) return true;
  if (want.compression !== undefined && (current.compression ?? "none") !== want.compression) return true;
  const tags = [...(want.placement?.tags ?? [])].sort().join(",");
  return tags !== [...(current.placement?.tags ?? [])].sort().join(",");
}
