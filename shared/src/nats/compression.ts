import { serverAtLeast } from "./server-version";

/**
 * How the streams and buckets that keep data for long (events, audit, the KV store's records, artifacts) keep it on
 * disk (WF_STORE_COMPRESSION). Work queues (commands, timers) are left as written: their messages go within seconds,
 * and compressing blocks of acknowledged messages would cost the server for nothing.
 */
export type StoreCompression = "s2" | "none";

/** Whether the server connected to compresses stream blocks (2.10+). */
export function serverHasCompression(version: string | undefined): boolean {
  return serverAtLeast(version, 2, 10);
}
