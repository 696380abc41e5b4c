/** Stale markers' purges in flight at once. */
const STALE_IN_FLIGHT = 16;

interface Due {
  key: string;
  /** The marker's revision + 1: its messages before this go, a later put stays. */
  before: number;
  at: number;
}

/**
 * The purges of a followed index's delete markers, each `delayMs` after its removal, in the
 * order they were made: one queue and one timer, armed for the oldest, where a timer per marker
 * held a timer object and a closure for each removal of a minute (a retention pass removes three
 * keys per execution). Purges are not awaited one by one: their failures leave a marker behind,
 * which a follower reads as a removal it already has.
 */
export class MarkerPurges {
  #queue: Due[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | null = null;
  /** Stale markers found by a view, purged at once, STALE_IN_FLIGHT at a time. */
  #stale: { key: string; before: number }[] = [];
  #staleInFlight = 0;

  constructor(
    private readonly purge: (key: string, before: number) => Promise<void>,
    private readonly delayMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Purges `key`'s messages before `before` once `delayMs` has passed. */
  add(key: string, before: number): void {
    this.#queue.push({ key, before, at: this.now() + this.delayMs });
    if (this.#timer === null) this.#arm();
  }

  /**
   * Purges `key`'s messages before `before` now: a marker its remover did not purge (it stopped
   * first), found by a view as it reads the bucket, which may meet a great many at once.
   */
  purgeNow(key: string, before: number): void {
    this.#stale.push({ key, before });
    this.#drainStale();
  }

  /** Markers waiting for their purge. */
  get waiting(): number {
    return this.#queue.length - this.#head + this.#stale.length;
  }

  /** Forgets the purges not made yet: their markers stay. */
  close(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#queue = [];
    this.#head = 0;
    this.#stale = [];
  }

  #drainStale(): void {
    while (this.#staleInFlight < STALE_IN_FLIGHT && this.#stale.length > 0) {
      const { key, before } = this.#stale.pop()!;
      this.#staleInFlight += 1;
      this.purge(key, before)
        .catch(() => undefined)
        .finally(() => {
          this.#staleInFlight -= 1;
          this.#drainStale();
        });
    }
  }

  #arm(): void {
    const next = this.#queue[this.#head];
    if (next === undefined) {
      this.#timer = null;
      return;
    }
    this.#timer = setTimeout(() => this.#due(), Math.max(0, next.at - this.now()));
    this.#timer.unref();
  }

  #due(): void {
    const now = this.now();
    while (this.#head < this.#queue.length && this.#queue[this.#head]!.at <= now) {
      const { key, before } = this.#queue[this.#head++]!;
      this.purge(key, before).catch(() => undefined);
    }
    // Purged entries are dropped from the front once they are half of the queue: the copy then
    // costs no more than the purges that came before it.
    if (this.#head > 1_024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    this.#arm();
  }
}
