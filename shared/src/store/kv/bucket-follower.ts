import {
  DeliverPolicy,
  type Consumer,
  type ConsumerMessages,
  type JetStreamManager,
  type JsMsg,
} from "@nats-io/jetstream";
import { WfError } from "../../errors";

/** A list waits this long for a follower that makes no progress before it fails. */
const CATCH_UP_MS = 5_000;
/** After this long without reaching the sequence waited for, the consumer is asked whether any is left. */
const STALL_MS = 50;
/**
 * The follower's heartbeat: two missed, and the ordered consumer is made again from where it
 * was. Its server may die (a cluster member restarting), which otherwise goes unseen for 30 s.
 */
const HEARTBEAT_MS = 1_000;

/**
 * Delete markers a follower meets older than `olderThanMs` (their remover stopped before it
 * purged them): `found` gets each one's key and sequence, for a purge up to it.
 */
export interface StaleMarkers {
  olderThanMs: number;
  found(key: string, seq: number): void;
}

/** What a view built from a bucket's writes does with them. */
export interface BucketView {
  /** One write: `key` without the bucket's subject prefix; `removed` for a delete or purge. */
  apply(key: string, m: JsMsg, removed: boolean): void;
  /** Forgets everything applied: the follower starts over from the bucket's first write. */
  reset(): void;
}

/**
 * Follows a KV bucket's stream from its first write, unfiltered, and hands every write to a view
 * held in memory: the bucket stays the one source, the view is rebuilt by each process that reads it
 * (one ordered consumer, no durable state). `ready` waits until the follower has applied the bucket's
 * last sequence, so a read made after a write returned (by any process) sees it. A view may hold
 * writes back while it completes them (`hold`, `release`).
 */
export class BucketFollower {
  #applied = 0;
  /** The last message handed to the view: its consumer sequence is what the consumer's own state is compared with. */
  #received: JsMsg | null = null;
  #waiters: { seq: number; done(): void; fail(err: unknown): void }[] = [];
  #messages: ConsumerMessages | null = null;
  #consumer: Consumer | null = null;
  #started: Promise<void> | null = null;
  #closed = false;
  /** Counts the views built: work started for an earlier one is dropped (`generation`). */
  #generation = 0;
  /** Writes the view holds back, still being completed. */
  #held = 0;
  /** The last-sequence request the reads asking in this turn share, until it is sent. */
  #nextLastSeq: Promise<number> | null = null;

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
    private readonly view: BucketView,
    /** What the view is, in errors: "the execution lists". */
    private readonly name: string,
    private readonly stale?: StaleMarkers,
  ) {}

  /** Starts following the bucket; reads do it themselves, a process that serves them may do it early. */
  start(): Promise<void> {
    if (this.#closed) return Promise.reject(this.#error("are closed"));
    this.#started ??= this.#follow().catch((err: unknown) => {
      this.#started = null;
      throw err;
    });
    return this.#started;
  }

  close(): void {
    this.#closed = true;
    void this.#messages?.close();
    this.#lose(this.#error("are closed"));
  }

  /** Started, and every write stored before now applied. */
  async ready(): Promise<void> {
    await this.start();
    await this.#caughtUp();
  }

  /** The view built so far: work a view started for an earlier one is dropped. */
  get generation(): number {
    return this.#generation;
  }

  /** The view completes a write it applied later: reads wait for it as for a write not applied yet. */
  hold(): void {
    this.#held += 1;
  }

  /** A held write of this generation, of sequence `seq`, is complete. */
  release(generation: number, seq: number): void {
    if (generation !== this.#generation) return;
    this.#held -= 1;
    this.#advance(seq);
  }

  async #follow(): Promise<void> {
    const stream = `KV_${this.bucket}`;
    const prefixLength = `$KV.${this.bucket}.`.length;
    // Every key, not only those the view keeps: the last sequence waited for may be any key's. The
    // bucket keeps one value per key, so the whole stream is each key's last value, and a consumer
    // of all of it, unfiltered, is made at once: one of each key's last value (LastPerSubject) had
    // nats-server 2.9.10 gather them first, ~3 s at a million keys, past the 5 s request timeout
    // on a slower VM. Its requests keep that timeout, so one lost in a leader move is soon sent again.
    const consumer = await this.jsm.jetstream().consumers.get(stream, { deliver_policy: DeliverPolicy.All });
    this.#consumer = consumer;
    // A callback, not the async iterator: each message applied where it is parsed, without a
    // promise of its own (a view may follow every status change of every execution).
    const messages = await consumer.consume({
      max_messages: 10_000,
      idle_heartbeat: HEARTBEAT_MS,
      expires: 5 * HEARTBEAT_MS,
      callback: (m) => {
        const op = m.headers?.get("KV-Operation");
        const key = m.subject.slice(prefixLength);
        const removed = op === "DEL" || op === "PURGE";
        this.view.apply(key, m, removed);
        // Kept whole: its delivery sequence is parsed from the reply subject only when a read stalls.
        this.#received = m;
        if (removed && this.stale && Date.now() - m.info.timestampNanos / 1e6 > this.stale.olderThanMs)
          this.stale.found(key, m.seq);
        this.#advance(m.seq);
      },
    });
    this.#messages = messages;
    void messages.closed().then((err) => {
      // Whatever ended it (the stream gone, a fatal consumer error), the next read starts afresh.
      if (!this.#closed && this.#messages === messages)
        this.#lose(err ?? this.#error("lost their consumer; the next list builds them again"));
    });
  }

  #advance(seq: number): void {
    if (seq > this.#applied) this.#applied = seq;
    if (this.#held > 0 || this.#waiters.length === 0) return;
    const ready = this.#waiters.filter((w) => w.seq <= this.#applied);
    if (ready.length === 0) return;
    this.#waiters = this.#waiters.filter((w) => w.seq > this.#applied);
    for (const w of ready) w.done();
  }

  /**
   * Waits until the follower has applied every write stored before now: the bucket's last
   * sequence, read from the server. Should that message be gone before it was delivered (a
   * marker purged meanwhile), the consumer's own state says when nothing is left to deliver.
   * However long the follower takes while it makes progress (a first build reads every key);
   * after CATCH_UP_MS without any, the read fails rather than answer from a partial view.
   */
  async #caughtUp(): Promise<void> {
    const last = await this.#lastSeq();
    let progress = this.#applied;
    let stalledSince = Date.now();
    while (!this.#isApplied(last)) {
      // A view lost meanwhile is built again, and waited for like a first one.
      if (this.#started === null) await this.start();
      if (await this.#appliedBy(last, STALL_MS)) break;
      if (this.#applied > progress) {
        progress = this.#applied;
        stalledSince = Date.now();
        continue;
      }
      // Nothing left to deliver, asked after `last` was read, and all it delivered received: every
      // message up to `last` that still exists is applied, the rest were purged (the bucket's last
      // messages were delete markers). nats-server 2.9 moves the delivered sequence over them, 2.15 does not.
      const info = await this.#consumer?.info().catch(() => null);
      if (
        info &&
        info.num_pending === 0 &&
        info.delivered.consumer_seq === (this.#received?.info.deliverySequence ?? 0)
      ) {
        this.#advance(Math.max(last, info.delivered.stream_seq));
      }
      if (this.#isApplied(last)) break;
      if (Date.now() - stalledSince > CATCH_UP_MS) {
        // A follower stuck without an error is dropped too: the next read builds the view afresh.
        this.#drop();
        throw new WfError(
          "UNAVAILABLE",
          `${this.name} are behind the store by ${last - this.#applied} writes and not catching up; retry`,
        );
      }
    }
  }

  /**
   * The bucket's last sequence, asked of the server once for every read that asks in the same
   * event-loop turn: the request goes out after all of them asked, so its answer covers every
   * write stored before any of them did. Many pollers then cost one request per turn, not each one.
   */
  #lastSeq(): Promise<number> {
    this.#nextLastSeq ??= new Promise<number>((resolve, reject) => {
      setImmediate(() => {
        this.#nextLastSeq = null;
        this.jsm.streams.info(`KV_${this.bucket}`).then((info) => resolve(info.state.last_seq), reject);
      });
    });
    return this.#nextLastSeq;
  }

  #isApplied(seq: number): boolean {
    return this.#applied >= seq && this.#held === 0;
  }

  /** Whether `seq` gets applied within `ms`; rejects when the view is lost meanwhile. */
  #appliedBy(seq: number, ms: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const waiter = {
        seq,
        done: () => (clearTimeout(timer), resolve(true)),
        fail: (err: unknown) => (clearTimeout(timer), reject(err)),
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(false);
      }, ms);
      this.#waiters.push(waiter);
    });
  }

  /** Stops a follower that makes no progress, though its consumer did not end. */
  #drop(): void {
    const messages = this.#messages;
    this.#lose(this.#error("stopped catching up; the next list builds them again"));
    void messages?.close();
  }

  /** Drops the view (its consumer ended, or it is closed): waiting reads fail, the next one builds it again. */
  #lose(err: unknown): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    this.view.reset();
    this.#applied = 0;
    this.#received = null;
    this.#held = 0;
    this.#generation += 1;
    this.#started = null;
    this.#consumer = null;
    this.#messages = null;
    for (const w of waiters) w.fail(err);
  }

  #error(what: string): WfError {
    return new WfError("UNAVAILABLE", `${this.name} ${what}`);
  }
}
