import { KvWatchInclude, type KV, type KvWatchEntry } from "@nats-io/kv";
import type { QueuedIterator } from "@nats-io/nats-core";
import type { Versioned } from "../port";
import { deepFreeze } from "../../deep-freeze";
import { Lru } from "../../pools/lru";

/** Past this age an entry is read again, even if the watch never reported a change. */
export const RECENT_MAX_AGE_MS = 2_000;
/**
 * Past this age an entry still served is read again in the background: a hot record is never
 * missing, so no request waits for its read (many at once did, each 2 s, on a busy webhook).
 */
export const RECENT_REFRESH_MS = RECENT_MAX_AGE_MS / 2;
/**
 * Past this the oldest entry goes: hits do not reorder, since every entry is read again within RECENT_MAX_AGE_MS
 * anyway.
 */
const CAPACITY = 10_000;
/** After a watch fails to start or ends, reads go to the server for this long before it is tried again. */
const RETRY_MS = 1_000;

/**
 * Records of one KV bucket kept in memory for hot read paths, served only while a watch of the bucket
 * is live: any writer's change evicts the key when the watch delivers it, and no entry is served past
 * RECENT_MAX_AGE_MS. Writes through this process replace the entry at once; a server read that
 * overlaps a write or watch event is returned but not kept (it may hold the replaced value). Entries
 * are deep-frozen: every caller shares them (docs/architecture.md#storage).
 */
export class RecentReads<T> {
  readonly #entries = new Lru<string, { entry: Versioned<T>; at: number }>(CAPACITY);
  #watch: QueuedIterator<KvWatchEntry> | null = null;
  #starting = false;
  #retryAt = 0;
  #closed = false;
  /** Bumped by every write and watch event; a read that saw it move is not kept. */
  #generation = 0;

  /**
   * `records` is watched whole, or only its keys under `opts.key` (a subject filter), each change
   * evicting the entry `opts.tokenOf` names for its key (by default, the key's own).
   */
  constructor(
    private readonly records: KV,
    private readonly opts: { key?: string; tokenOf?: (key: string) => string } = {},
  ) {}

  /** The entry to serve for `token`, if a fresh one is held; starts the watch on first use. */
  get(token: string): Versioned<T> | undefined {
    if (this.#watch === null) {
      this.#start();
      return undefined;
    }
    const hit = this.#entries.get(token);
    if (hit === undefined) return undefined;
    if (Date.now() - hit.at > RECENT_MAX_AGE_MS) {
      this.#entries.delete(token);
      return undefined;
    }
    return hit.entry;
  }

  /** Whether `token`'s entry is held but old enough to be read again before it must be. */
  dueForRefresh(token: string): boolean {
    const hit = this.#entries.get(token);
    return hit !== undefined && Date.now() - hit.at > RECENT_REFRESH_MS;
  }

  /** Taken before a server read; `loaded` keeps that read only if nothing moved meanwhile. */
  mark(): number {
    return this.#generation;
  }

  loaded(token: string, entry: Versioned<T> | null, mark: number): void {
    if (this.#watch === null || mark !== this.#generation) return;
    if (entry === null) this.#entries.delete(token);
    else this.#keep(token, deepFreeze(entry));
  }

  /** This process wrote `entry` (acknowledged): later reads here must see it. */
  wrote(token: string, entry: Versioned<T>): void {
    this.#generation++;
    if (this.#watch === null) return;
    this.#keep(token, deepFreeze(structuredClone(entry)));
  }

  #keep(token: string, entry: Versioned<T>): void {
    this.#entries.set(token, { entry, at: Date.now() });
  }

  forget(token: string): void {
    this.#generation++;
    this.#entries.delete(token);
  }

  /** This process changed records in ways it does not trace to tokens: nothing held is served again. */
  forgetAll(): void {
    this.#generation++;
    this.#entries.clear();
  }

  close(): void {
    this.#closed = true;
    this.#watch?.stop();
  }

  #start(): void {
    if (this.#starting || this.#closed || Date.now() < this.#retryAt) return;
    this.#starting = true;
    // Only changes after the watch exists are delivered: nothing is kept until it does.
    this.records
      .watch({
        include: KvWatchInclude.UpdatesOnly,
        headers_only: true,
        ...(this.opts.key === undefined ? {} : { key: this.opts.key }),
      })
      .then(async (watch) => {
        this.#watch = watch;
        if (this.#closed) watch.stop();
        for await (const change of watch) {
          this.#generation++;
          const token = this.opts.tokenOf?.(change.key) ?? change.key;
          const hit = this.#entries.get(token);
          if (hit !== undefined && hit.entry.version < change.revision) this.#entries.delete(token);
        }
      })
      .catch(() => undefined)
      .finally(() => {
        this.#watch = null;
        this.#starting = false;
        this.#entries.clear();
        this.#retryAt = Date.now() + RETRY_MS;
      });
  }
}
