export interface FairSlotsOptions {
  /** Slots held at once while nobody has waited past `maxWaitMs`. */
  size: number;
  /** A waiter that waited this long may go past `size`, up to `limit`. */
  maxWaitMs: number;
  /** Slots held at once, at most, whatever the waits: the bound on what the holders can take together. */
  limit: number;
  /**
   * Slots of the limit that only an owner holding none may take: owners already holding slots leave them free, so
   * that however long their steps run (their capped timeouts), a new owner's first take finds room (pool-shares.ts).
   */
  reserve: number;
}

interface Waiter {
  grant(): void;
  /** Slots it takes at once. */
  weight: number;
  /** It waited `maxWaitMs`: it may take a slot past `size`. */
  overdue: boolean;
  /** Slots its owner may hold at once. */
  share: number;
}

/**
 * A counting semaphore shared by tenants: each owner waits in a queue of its own, and a free slot
 * (as many as a waiter weighs) goes to the owners in turn (the one served longest ago first), each
 * up to its share (given with each acquire). Waiters can give up (an aborted run leaves its queue);
 * one that waited `maxWaitMs` goes past `size` up to `limit`, so holders stuck for long hold the
 * others back by no more than that, and the last `reserve` slots of the limit go only to owners
 * holding none: whatever the holders' shares add up to, a new owner waits for its first slot at
 * most until one holder's step ends, within its capped timeout (docs/sandbox.md#what-tenants-share).
 */
export class FairSlots {
  private held = 0;
  private readonly heldBy = new Map<string, number>();
  /** Owners with waiters, in the order they are to be served: one served goes to the back. */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(private readonly opts: FairSlotsOptions) {}

  /** Whether an acquire by `owner` with `share` (of `weight` slots) now would wait. */
  wouldWait(owner: string, share: number, weight = 1): boolean {
    return !this.fits(owner, weight, false) || !this.underShare(owner, share, weight) || this.queues.size > 0;
  }

  /**
   * Resolves true once `weight` slots are held, false if `signal` aborted first. `share`: slots `owner` may hold at
   * once. A weight over the limit or the share is never granted: the caller keeps it within the size.
   */
  acquire(owner: string, share: number, signal?: AbortSignal, weight = 1): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.tryAcquire(owner, share, weight)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const leave = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const queue = this.queues.get(owner);
        const i = queue?.indexOf(waiter) ?? -1;
        if (i >= 0) queue!.splice(i, 1);
        if (queue?.length === 0) this.queues.delete(owner);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          this.take(owner, weight);
          resolve(true);
        },
        weight,
        overdue: false,
        share,
      };
      const onAbort = (): void => {
        leave();
        resolve(false);
        // Its place may have been what kept a waiter behind it from a slot.
        this.serve();
      };
      const timer = setTimeout(() => {
        waiter.overdue = true;
        this.serve();
      }, this.opts.maxWaitMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      const queue = this.queues.get(owner) ?? [];
      queue.push(waiter);
      this.queues.set(owner, queue);
      this.serve();
    });
  }

  /** Holds `weight` slots for `owner` where it would not wait for them (wouldWait); whether it does. */
  tryAcquire(owner: string, share: number, weight = 1): boolean {
    if (this.wouldWait(owner, share, weight)) return false;
    this.take(owner, weight);
    return true;
  }

  /** Gives back `weight` slots `owner` took in one acquire. */
  release(owner: string, weight = 1): void {
    this.held -= weight;
    const mine = (this.heldBy.get(owner) ?? weight) - weight;
    if (mine > 0) this.heldBy.set(owner, mine);
    else this.heldBy.delete(owner);
    this.serve();
  }

  private take(owner: string, weight: number): void {
    this.held += weight;
    this.heldBy.set(owner, (this.heldBy.get(owner) ?? 0) + weight);
  }

  private underShare(owner: string, share: number, weight: number): boolean {
    return (this.heldBy.get(owner) ?? 0) + weight <= share;
  }

  /**
   * Whether `weight` more slots fit `owner`: within the size, or the limit for an overdue waiter; and, for an owner
   * holding some already, with the reserve left free.
   */
  private fits(owner: string, weight: number, overdue: boolean): boolean {
    const after = this.held + weight;
    const bound = this.heldBy.has(owner) ? this.opts.limit - this.opts.reserve : this.opts.limit;
    return after <= bound && (after <= this.opts.size || overdue);
  }

  /** Grants slots while some owner's first waiter may take one, owners in turn. */
  private serve(): void {
    for (let granted = true; granted;) {
      granted = false;
      for (const [owner, queue] of this.queues) {
        const first = queue[0]!;
        if (!this.fits(owner, first.weight, first.overdue) || !this.underShare(owner, first.share, first.weight))
          continue;
        first.grant();
        // To the back of the turn, if it still waits.
        if (this.queues.delete(owner) && queue.length > 0) this.queues.set(owner, queue);
        granted = true;
        break;
      }
    }
  }
}
