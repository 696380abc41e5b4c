/** A counting semaphore whose waiters can give up (an aborted run leaves the queue). */
export class Slots {
  private free: number;
  private readonly waiters: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Resolves true once a slot is held, false if `signal` aborted first. */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(true);
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}
