import { isTransient, retryTransient } from "../../nats/transient";
import type { KeyRemovals } from "./index-removals";
import type { KvBuckets } from "./kv-buckets";
import { leaderLast, type LeaderEntry } from "./leader-reads";
import { isWrongLastSequence } from "../../nats/wrong-last-sequence";

/** The index keys of one record type (values empty, or the one value a layout carries): puts, removals and reads. */
export class IndexKeys {
  constructor(
    private readonly buckets: KvBuckets,
    private readonly removals: KeyRemovals,
  ) {}

  /** Puts `key` carrying `value`; with `after`, only if the key's last put is still that revision. */
  async put(key: string, value: string, after?: number): Promise<number> {
    const subject = `$KV.${this.buckets.indexBucket}.${key}`;
    return (
      await this.buckets.publisher.publish(
        subject,
        value,
        after === undefined ? undefined : { expect: { lastSubjectSequence: after } },
      )
    ).seq;
  }

  /** Removes `key`, only up to revision `before` when given, so that a later writer's put of it stays. */
  remove(key: string, before?: number): Promise<void> {
    return this.removals.remove(key, before);
  }

  /** The key's last message as its leader holds it: every read of one bounds a write of it. */
  entry(key: string): Promise<LeaderEntry | null> {
    return leaderLast(this.buckets.jsm, this.buckets.indexBucket, key);
  }

  /**
   * Gives `key` the value `value` unless it carries it already, bound to the revision read; a put
   * made meanwhile by another writer is newer and stays. Returns the key's revision as this
   * process knows it (0 when it lost to such a put).
   */
  async settle(key: string, value: string): Promise<number> {
    const entry = await this.entry(key);
    if (entry?.operation === "PUT" && entry.string() === value) return entry.revision;
    try {
      return await this.put(key, value, entry?.revision ?? 0);
    } catch (err) {
      if (isWrongLastSequence(err)) return 0;
      throw err;
    }
  }

  /**
   * Puts again, through transient failures, each of `keys` whose put failed for now (of those `claimed` accepts, when
   * given).
   */
  putFailedAgain(
    keys: readonly string[],
    value: string,
    settled: readonly PromiseSettledResult<number>[],
    claimed: (key: string) => boolean = () => true,
  ): Promise<PromiseSettledResult<number>[]> {
    return Promise.all(
      settled.map(async (put, i): Promise<PromiseSettledResult<number>> => {
        if (put.status === "fulfilled" || !isTransient(put.reason) || !claimed(keys[i]!)) return put;
        return retryTransient(() => this.put(keys[i]!, value)).then(
          (revision) => ({ status: "fulfilled", value: revision }),
          (reason: unknown) => ({ status: "rejected", reason }),
        );
      }),
    );
  }

  close(): void {
    this.removals.close();
  }
}

/** Records the revisions of the puts that succeeded (`puts[i]` wrote `keys[i]`); 0 for the rest. */
export function withRevisions(
  index: Map<string, number>,
  keys: readonly string[],
  puts: readonly PromiseSettledResult<number>[],
): Map<string, number> {
  keys.forEach((key, i) => {
    const put = puts[i];
    index.set(key, put?.status === "fulfilled" ? put.value : 0);
  });
  return index;
}

export function throwFirstRejection(results: readonly PromiseSettledResult<unknown>[]): void {
  for (const result of results) if (result.status === "rejected") throw result.reason;
}

/** The token of the record an index key lists: index keys end in it. */
export function recordTokenOf(key: string): string {
  return key.slice(key.lastIndexOf(".") + 1);
}
