import type { KV } from "@nats-io/kv";
import type { Versioned } from "../port";
import { keyToken } from "./key-codec";
import { RecentReads } from "./recent-reads";

/**
 * `getRecent` of one record type: records kept in memory while a watch of their bucket is live
 * (recent-reads.ts), told of this process's writes, with one server read per record at a time.
 */
export class RecentRecords<T> {
  /** Created by the first get: collections nobody reads this way keep no watch. */
  #recent: RecentReads<T> | null = null;
  /** Server reads in flight, by token, with the RecentReads mark each started at. */
  readonly #reads = new Map<string, { mark: number; read: Promise<Versioned<T> | null> }>();

  constructor(private readonly records: KV) {}

  /** The record from memory when held, else `read` from the server (shared by callers that miss together). */
  async get(id: string, read: (id: string) => Promise<Versioned<T> | null>): Promise<Versioned<T> | null> {
    const token = keyToken(id);
    const recent = (this.#recent ??= new RecentReads<T>(this.records));
    const hit = recent.get(token);
    if (hit === undefined) return this.#read(recent, id, token, read);
    if (recent.dueForRefresh(token)) this.#read(recent, id, token, read).catch(() => undefined);
    return hit;
  }

  /** This process wrote `entry`: later reads here must see it. */
  wrote(token: string, entry: Versioned<T>): void {
    this.#recent?.wrote(token, entry);
  }

  forget(token: string): void {
    this.#recent?.forget(token);
  }

  /** Stops the watch, if one was started. */
  close(): void {
    this.#recent?.close();
  }

  /**
   * One server read of `id` at a time: callers that miss while it is in flight share it, unless a
   * write or a watch event came since it started (it may have read what that replaced).
   */
  #read(
    recent: RecentReads<T>,
    id: string,
    token: string,
    read: (id: string) => Promise<Versioned<T> | null>,
  ): Promise<Versioned<T> | null> {
    const mark = recent.mark();
    const inFlight = this.#reads.get(token);
    if (inFlight?.mark === mark) return inFlight.read;
    const reading = read(id).then((loaded) => {
      recent.loaded(token, loaded, mark);
      return loaded;
    });
    const entry = { mark, read: reading };
    this.#reads.set(token, entry);
    const done = () => {
      if (this.#reads.get(token) === entry) this.#reads.delete(token);
    };
    reading.then(done, done);
    return reading;
  }
}
