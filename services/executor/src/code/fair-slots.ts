export interface FairSlotsOptions {
  /** Slots held at once while nobody has waited past `maxWaitMs`. */
  size: number;
  /** A waiter that waited this long may go past `size`, up to `limit`. */
  maxWaitMs: number;
  /** Slots held at once, at most, whatever the waits: the bound on what the holders can take together. */
  limit: number;
}

interface Waiter {
  grant(): void;
  /** It waited `maxWaitMs`: it may take a slot past `size`. */
  overdue: boolean;
  /** Slots its owner may hold at once. */
  share: number;
}

/**
 * A counting semaphore shared by tenants: each owner waits in a queue of its own, and a free slot
 * goes to the owners in turn (the one served longest ago first), each up to its share (given with
 * each acquire). Waiters can give up (an aborted run leaves its queue); one that waited `maxWaitMs`
 * goes past `size` up to `limit`, so holders stuck for long hold the others back by no more than
 * that (docs/sandbox.md#what-tenants-share).
 */
export class FairSlots {
  private held = 0;
  private readonly heldBy = new Map<string, number>();
  /** Owners with waiters, in the order they are to be served: one served goes to the back. */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(private readonly opts: FairSlotsOptions) {}

  /** Whether an acquire by `owner` with `share` now would wait. */
  wouldWait(owner: string, share: number): boolean {
    return this.held >= this.opts.size || !this.underShare(owner, share) || this.queues.size > 0;
  }

  /** Resolves true once a slot is held, false if `signal` aborted first. `share`: slots `owner` may hold at once. */
  acquire(owner: string, share: number, signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (!this.wouldWait(owner, share)) {
      this.take(owner);
      return Promise.resolve(true);
    }
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
          this.take(owner);
          resolve(true);
        },
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

  release(owner: string): void {
    this.held -= 1;
    const mine = (this.heldBy.get(owner) ?? 1) - 1;
    if (mine > 0) this.heldBy.set(owner, mine);
    else this.heldBy.delete(owner);
    this.serve();
  }

  private take(owner: string): void {
    this.held += 1;
    this.heldBy.set(owner, (this.heldBy.get(owner) ?? 0) + 1);
  }

  private underShare(owner: string, share: number): boolean {
    return (this.heldBy.get(owner) ?? 0) < share;
  }

  /** Grants slots while some owner's first waiter may take one, owners in turn. */
  private serve(): void {
    for (let granted = true; granted;) {
      granted = false;
      for (const [owner, queue] of this.queues) {
        const first = queue[0]!;
        const room = this.held < this.opts.size || (first.overdue && this.held < this.opts.limit);
        if (!room || !this.underShare(owner, first.share)) continue;
        first.grant();
        // To the back of the turn, if it still waits.
        if (this.queues.delete(owner) && queue.length > 0) this.queues.set(owner, queue);
        granted = true;
        break;
      }
    }
  }
}
