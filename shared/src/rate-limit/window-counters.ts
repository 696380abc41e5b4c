import type { KV } from "@nats-io/kv";
import { openKvBucket, type StreamPlacement } from "../nats";
import type { NatsConnection } from "@nats-io/nats-core";
import { z } from "zod";
import type { PlanLimits } from "../auth";
import { isWrongLastSequence, type JetStreamPublisher } from "../store";
import { counterKey, epochMinute } from "./windows";
import { Lru } from "../pools/lru";

/** Long enough for a day's counter to outlive its UTC date whatever the clock skew. */
const MAX_AGE_MS = 2 * 86_400_000;
const MAX_ATTEMPTS = 100;
const REMEMBERED_KEYS = 10_000;
/** Below this share of a limit (as this process sees it), a request need not wait for its write... */
const PROMPT_SHARE = 0.9;
/** ...as long as this process has answered at most this share of the minute limit ahead of its writes. */
const AHEAD_SHARE = 0.01;
/**
 * How long counts answered ahead wait for company before their write (an exact count never
 * waits): a key's writes while its answers run ahead, at most one per this. At 50 ms, a webhook
 * triggered 15 times a second cost a write per trigger (e2e bench: 0.74 messages per workflow each way more).
 */
const LINGER_MS = 200;

/** A key's requests on one UTC date (`d`), and in the epoch minute `e` of that date (`m`). */
const Stored = z.object({ d: z.number().int().nonnegative(), m: z.number().int().nonnegative(), e: z.number().int() });
type Stored = z.infer<typeof Stored>;

export interface WindowCounts {
  minute: number;
  day: number;
}

interface Waiter {
  now: number;
  /** How much it counts: 1 for a request, a size for an amount (addAmount). */
  n: number;
  resolve(counts: WindowCounts): void;
  reject(err: unknown): void;
}

/**
 * Requests of one key waiting for the next write, how many the write in flight carries, and the linger before the first
 * write.
 */
interface Queue {
  waiters: Waiter[];
  inFlight: number;
  linger: NodeJS.Timeout | null;
}

/** What a key's queue counts that is not written yet: its waiters' and the write in flight's. */
function unwrittenOf(queue: Queue | undefined): number {
  return queue ? queue.waiters.reduce((sum, w) => sum + w.n, 0) + queue.inFlight : 0;
}

/** Counted already: the write only has to carry it. A lost write loses its counts (see count()). */
const ANSWERED: Pick<Waiter, "resolve" | "reject"> = { resolve: () => undefined, reject: () => undefined };

/**
 * Request counters shared by every replica (an API key's in the edges, an owner's triggered starts in the schedulers),
 * in the KV bucket `<ns>_ratelimits`: one value per id and UTC date, `<id>.<yyyymmdd>` -> `{d, m, e}`, both windows in
 * one write (the minute restarts when the epoch minute `e` moves on). An id's requests during a write share its next
 * compare-and-set write; given limits, a count well within them is answered ahead of its write, which replicas
 * together can overrun only slightly (docs/webhooks.md#the-trigger).
 */
export class WindowCounters {
  // Yesterday's keys are never read or written again: they go first.
  readonly #known = new Lru<string, { value: Stored; revision: number }>(REMEMBERED_KEYS);
  /** The limits each quota was last judged by: a count made before its owner's plan is read may go ahead by them. */
  readonly #limits = new Lru<string, PlanLimits>(REMEMBERED_KEYS);
  readonly #queues = new Map<string, Queue>();
  readonly #draining = new Set<Promise<void>>();

  private constructor(
    private readonly kv: KV,
    private readonly bucket: string,
    private readonly publisher: JetStreamPublisher,
  ) {}

  static async open(
    nc: NatsConnection,
    ns: string,
    placement: StreamPlacement,
    publisher: JetStreamPublisher,
  ): Promise<WindowCounters> {
    const bucket = `${ns}_ratelimits`;
    return new WindowCounters(
      await openKvBucket(nc, bucket, { history: 1, ttlMs: MAX_AGE_MS }, placement),
      bucket,
      publisher,
    );
  }

  /**
   * Counts one request of `keyId` at `now`; resolves to its rank in the minute and in the day.
   * With `limits`, resolves at once while well within them (see the class comment).
   */
  count(keyId: string, now: number, limits?: PlanLimits): Promise<WindowCounts> {
    const key = counterKey(keyId, now);
    const prompt = limits && this.#estimate(key, now, limits);
    if (prompt) {
      this.#enqueue(key, { now, n: 1, ...ANSWERED }, true);
      return Promise.resolve(prompt);
    }
    return new Promise((resolve, reject) => this.#enqueue(key, { now, n: 1, resolve, reject }, false));
  }

  /**
   * Counts `n` (an amount: bytes stored, say) for `keyId` at `now`, written before it resolves; resolves to the totals
   * with it, in the minute and in the day.
   */
  addAmount(keyId: string, n: number, now: number): Promise<WindowCounts> {
    const key = counterKey(keyId, now);
    return new Promise((resolve, reject) => this.#enqueue(key, { now, n, resolve, reject }, false));
  }

  /**
   * Counts one request of `keyId` like `count`, going ahead by the limits its quota was last judged
   * by (`judgedBy`), if any: an API request counts while its owner's plan is still being read.
   */
  countAsLastJudged(keyId: string, now: number): Promise<WindowCounts> {
    return this.count(keyId, now, this.#limits.get(keyId));
  }

  /** Notes the limits `keyId`'s quota was judged by, for its next `countAsLastJudged`. */
  judgedBy(keyId: string, limits: PlanLimits): void {
    if (this.#limits.get(keyId) === limits) return;
    this.#limits.set(keyId, limits);
  }

  /**
   * A key's counts at `now` without counting a request (the console's usage report): the stored
   * counter, or this process's own view of it when that is ahead.
   */
  async peek(keyId: string, now: number): Promise<WindowCounts> {
    const key = counterKey(keyId, now);
    const entry = await this.kv.get(key);
    const stored = entry?.operation === "PUT" ? Stored.parse(entry.json()) : null;
    const known = this.#known.get(key)?.value ?? null;
    const value = stored && known ? (known.d > stored.d ? known : stored) : (stored ?? known);
    // Requests this process counted but has not written yet.
    const queue = this.#queues.get(key);
    const unwritten = unwrittenOf(queue);
    if (!value) return { minute: unwritten, day: unwritten };
    return { minute: (value.e >= epochMinute(now) ? value.m : 0) + unwritten, day: value.d + unwritten };
  }

  /** The rank of one more request as this process sees it, if that is well within `limits`. */
  #estimate(key: string, now: number, limits: PlanLimits): WindowCounts | null {
    const known = this.#known.get(key);
    if (!known) return null;
    const queue = this.#queues.get(key);
    const uncounted = unwrittenOf(queue) + 1;
    if (uncounted > limits.perMinute * AHEAD_SHARE) return null;
    const minute = (known.value.e >= epochMinute(now) ? known.value.m : 0) + uncounted;
    const day = known.value.d + uncounted;
    const within =
      minute <= limits.perMinute * PROMPT_SHARE && (limits.perDay === null || day <= limits.perDay * PROMPT_SHARE);
    return within ? { minute, day } : null;
  }

  #enqueue(key: string, waiter: Waiter, answered: boolean): void {
    const queue = this.#queues.get(key);
    if (queue) {
      queue.waiters.push(waiter);
      // Someone waits for this write now: the linger ends.
      if (!answered && queue.linger !== null) this.#startDrain(key, queue);
      return;
    }
    const fresh: Queue = { waiters: [waiter], inFlight: 0, linger: null };
    this.#queues.set(key, fresh);
    if (answered) fresh.linger = setTimeout(() => this.#startDrain(key, fresh), LINGER_MS).unref();
    else this.#track(this.#drain(key, fresh));
  }

  #startDrain(key: string, queue: Queue): void {
    if (queue.linger === null) return;
    clearTimeout(queue.linger);
    queue.linger = null;
    this.#track(this.#drain(key, queue));
  }

  #track(drain: Promise<void>): void {
    this.#draining.add(drain);
    void drain.finally(() => this.#draining.delete(drain));
  }

  /** Writes the counts answered ahead now instead of after their linger (an edge stopping). */
  async close(): Promise<void> {
    for (const [key, queue] of this.#queues) this.#startDrain(key, queue);
    await Promise.all(this.#draining);
  }

  async #drain(key: string, queue: Queue): Promise<void> {
    while (queue.waiters.length > 0) {
      const batch = queue.waiters.splice(0);
      queue.inFlight = batch.reduce((sum, w) => sum + w.n, 0);
      const minute = epochMinute(Math.max(...batch.map((w) => w.now)));
      try {
        const before = await this.#add(key, queue.inFlight, minute);
        let counted = 0;
        for (const w of batch) {
          counted += w.n;
          w.resolve({ day: before.d + counted, minute: before.m + counted });
        }
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
      queue.inFlight = 0;
    }
    this.#queues.delete(key);
  }

  /** Adds `n` (requests, or an amount) at epoch minute `minute`; returns the counts before them. */
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
        // KV subjects are $KV.<bucket>.<key>; a create expects no message on the key (it never
        // has a delete marker: counters only expire).
        const ack = await this.publisher.publish(`$KV.${this.bucket}.${key}`, data, {
          expect: { lastSubjectSequence: known?.revision ?? 0 },
        });
        const revision = ack.seq;
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
    this.#known.set(key, { value, revision });
  }
}
