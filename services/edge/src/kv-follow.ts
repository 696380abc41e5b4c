import { KvWatchInclude, type KV, type KvEntry } from "@nats-io/kv";
import { ClosedConnectionError, type QueuedIterator } from "@nats-io/nats-core";

const RETRY_MS = 1_000;

/**
 * Every value put in a KV bucket from now on, by any process, handed to `onPut` as the watch
 * delivers it (normally within a millisecond). For counters that several edge processes update
 * by compare-and-set at the revision they last saw: without it, each write after another
 * process's fails, is read again and retried (measured: 17% of rate-limit writes with two edge
 * processes). A watch that ends is started again after RETRY_MS; until then writes fall back to
 * that read and retry, so following is never needed for correctness.
 */
export class KvFollower {
  #watch: QueuedIterator<KvEntry> | null = null;
  #stopped = false;

  constructor(
    private readonly kv: KV,
    private readonly onPut: (entry: KvEntry) => void,
  ) {
    this.#start();
  }

  stop(): void {
    this.#stopped = true;
    this.#watch?.stop();
  }

  #start(): void {
    if (this.#stopped) return;
    this.kv
      .watch({ include: KvWatchInclude.UpdatesOnly })
      .then(async (watch) => {
        this.#watch = watch;
        if (this.#stopped) watch.stop();
        for await (const entry of watch) {
          if (entry.operation !== "PUT") continue;
          // A value the owner cannot read is its own to skip: the watch goes on.
          try {
            this.onPut(entry);
          } catch {
            continue;
          }
        }
      })
      .catch((err: unknown) => {
        // Nothing to follow over a closed connection.
        if (err instanceof ClosedConnectionError) this.#stopped = true;
      })
      .finally(() => {
        this.#watch = null;
        if (!this.#stopped) setTimeout(() => this.#start(), RETRY_MS).unref();
      });
  }
}
