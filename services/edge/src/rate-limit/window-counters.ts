import type { KV } from "@nats-io/kv";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { z } from "zod";
import { isWrongLastSequence } from "@wf/shared/store";
import { counterKey, epochMinute } from "./windows";

/** Long enough for a day's counter to outlive its UTC date whatever the clock skew. */
const MAX_AGE_MS = 2 * 86_400_000;
const MAX_ATTEMPTS = 100;
const REMEMBERED_KEYS = 10_000;

/** A key's requests on one UTC date (`d`), and in the epoch minute `e` of that date (`m`). */
const Stored = z.object({ d: z.number().int().nonnegative(), m: z.number().int().nonnegative(), e: z.number().int() });
type Stored = z.infer<typeof Stored>;

export interface WindowCounts {
  minute: number;
  day: number;
}

interface Waiter {
  now: number;
  resolve(counts: WindowCounts): void;
  reject(err: unknown): void;
}

/**
 * Per-key request counters shared by every edge replica, in the KV bucket `<ns>_ratelimits`:
 * one value per key and UTC date, `<keyId>.<yyyymmdd>` -> `{d, m, e}`, holding both windows so
 * that a request costs one write. The day window is the key itself (a new date is a new key);
 * the minute window restarts whenever the epoch minute `e` moves on. Keys expire two days after
 * their last write.
 *
 * A write is a compare-and-set at the revision this process last saw, so replicas never lose
 * each other's counts; a lost race re-reads and retries. Requests of one key that arrive while a
 * write of it is in flight are counted together in the next write (each still gets its own
 * rank), so a busy key costs about one write per round trip, and concurrent requests of one
 * process do not race each other.
 */
export class WindowCounters {
  readonly #known = new Map<string, { value: Stored; revision: number }>();
  readonly #queues = new Map<string, { waiters: Waiter[] }>();

  private constructor(private readonly kv: KV) {}

  static async open(nc: NatsConnection, ns: string): Promise<WindowCounters> {
    return new WindowCounters(await new Kvm(nc).create(`${ns}_ratelimits`, { history: 1, ttl: MAX_AGE_MS }));
  }

  /** Counts one request of `keyId` at `now`; resolves to its rank in the minute and in the day. */
  count(keyId: string, now: number): Promise<WindowCounts> {
    const key = counterKey(keyId, now);
    return new Promise((resolve, reject) => {
      const queue = this.#queues.get(key);
      if (queue) {
        queue.waiters.push({ now, resolve, reject });
        return;
      }
      const fresh = { waiters: [{ now, resolve, reject }] };
      this.#queues.set(key, fresh);
      void this.#drain(key, fresh);
    });
  }

  async #drain(key: string, queue: { waiters: Waiter[] }): Promise<void> {
    while (queue.waiters.length > 0) {
      const batch = queue.waiters.splice(0);
      const minute = epochMinute(Math.max(...batch.map((w) => w.now)));
      try {
        const before = await this.#add(key, batch.length, minute);
        batch.forEach((w, i) => w.resolve({ day: before.d + i + 1, minute: before.m + i + 1 }));
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.#queues.delete(key);
  }

  /** Adds `n` requests at epoch minute `minute`; returns the counts before them. */
  async #add(key: string, n: number, minute: number): Promise<Stored> {
    for (let attempt = 1; ; attempt++) {
      const known = this.#known.get(key);
      // A replica whose clock is ahead may have moved the minute on already: count in its minute.
      const before: Stored = known
        ? { d: known.value.d, m: known.value.e >= minute ? known.value.m : 0, e: Math.max(known.value.e, minute) }
        : { d: 0, m: 0, e: minute };
      const after: Stored = { d: before.d + n, m: before.m + n, e: before.e };
      try {
        const data = JSON.stringify(after);
        const revision = known ? await this.kv.update(key, data, known.revision) : await this.kv.create(key, data);
        this.#remember(key, after, revision);
        return before;
      } catch (err) {
        if (!isWrongLastSequence(err) || attempt >= MAX_ATTEMPTS) throw err;
        const entry = await this.kv.get(key);
        if (entry?.operation === "PUT") this.#remember(key, Stored.parse(entry.json()), entry.revision);
        else this.#known.delete(key);
      }
    }
  }

  #remember(key: string, value: Stored, revision: number): void {
    this.#known.delete(key);
    this.#known.set(key, { value, revision });
    // Yesterday's keys are never written again: the oldest entries go first.
    if (this.#known.size > REMEMBERED_KEYS) this.#known.delete(this.#known.keys().next().value!);
  }
}
