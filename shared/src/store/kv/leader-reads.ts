import type { JetStreamManager } from "@nats-io/jetstream";
import { operationOf, type StoredEntry } from "./direct-reads";

/** A stored entry whose value is also read as text (an index key's status). */
export interface LeaderEntry extends StoredEntry {
  string(): string;
}

/**
 * A KV key's last message as its stream's leader holds it, through JetStream's message get API
 * (answered by the leader only), for reads that bound a write. A direct get may be answered by a
 * replica that has not applied the latest writes yet: a compare-and-set bound to the revision it
 * gave fails as if another writer had come first, and a status read there, put into a list
 * entry, would put back one the execution has left.
 */
export async function leaderLast(jsm: JetStreamManager, bucket: string, key: string): Promise<LeaderEntry | null> {
  const m = await jsm.streams.getMessage(`KV_${bucket}`, { last_by_subj: `$KV.${bucket}.${key}` });
  if (m === null) return null;
  return {
    operation: operationOf(m.header),
    revision: m.seq,
    length: m.data.length,
    json: () => m.json(),
    string: () => m.string(),
  };
}
