/**
 * A counting semaphore whose waiters can give up (an aborted run leaves the queue) and, given
 * `maxWaitMs`, stop waiting: a waiter that waited that long goes ahead beside the holders, so
 * that holders stuck for long (steps in endless loops, until their timeouts) hold nobody back
 * by more than that.
 */
export class Slots {
  private free: number;
  private readonly waiters: Array<() => void> = [];

  constructor(
    size: number,
    private readonly maxWaitMs?: number,
  ) {
    this.free = size;
  }

  /** Whether an acquire now would wait. */
  get full(): boolean {
    return this.free <= 0;
  }

  /** Resolves true once a slot is held (or the wait ran out), false if `signal` aborted first. */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const leave = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
      };
      const grant = (): void => {
        leave();
        resolve(true);
      };
      const onAbort = (): void => {
        leave();
        resolve(false);
      };
      // Past the wait it holds a slot beyond the size: `free` goes below zero until it releases.
      const timer =
        this.maxWaitMs === undefined
          ? undefined
          : setTimeout(() => {
              leave();
              this.free--;
              resolve(true);
            }, this.maxWaitMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  /** Takes a slot if one is free now, without waiting; whether it did. */
  tryAcquire(): boolean {
    if (this.free <= 0) return false;
    this.free--;
    return true;
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}
