/** What one yield did, told when it ends: how long it lasted and the executions it let run at once meanwhile. */
export interface YieldSummary {
  yieldedMs: number;
  /** Time-weighted over the yield. */
  meanConcurrency: number;
  topConcurrency: number;
}

/**
 * Follows a yield's concurrency from its start to its end, so that its end can say what it cost: an operator reading
 * "yielded 4.2 s at 9 on average" knows how many executions the triggers were given, which the start and end alone
 * do not tell.
 */
export class YieldCourse {
  #since = 0;
  #at = 0;
  #concurrency = 0;
  #weighted = 0;
  #top = 0;
  #open = false;

  /** A yield began at `at` (ms), taking `concurrency` at once. */
  start(at: number, concurrency: number): void {
    this.#open = true;
    this.#since = at;
    this.#at = at;
    this.#concurrency = concurrency;
    this.#weighted = 0;
    this.#top = concurrency;
  }

  /** The yield's concurrency became `concurrency` at `at`. */
  change(at: number, concurrency: number): void {
    if (!this.#open) return;
    this.#weighted += this.#concurrency * (at - this.#at);
    this.#at = at;
    this.#concurrency = concurrency;
    this.#top = Math.max(this.#top, concurrency);
  }

  /** The yield ended at `at`; null when none was open. */
  end(at: number): YieldSummary | null {
    if (!this.#open) return null;
    this.change(at, this.#concurrency);
    this.#open = false;
    const yieldedMs = at - this.#since;
    return {
      yieldedMs,
      meanConcurrency: yieldedMs > 0 ? Math.round((10 * this.#weighted) / yieldedMs) / 10 : this.#concurrency,
      topConcurrency: this.#top,
    };
  }
}
