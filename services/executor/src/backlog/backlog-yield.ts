import type { ConcurrencyBound } from "@wf/shared/nats";

export interface BacklogYieldSettings {
  /** Executions at once normally (WF_EXEC_CONCURRENCY). */
  full: number;
  /** Executions at once while the backlog grows fast (WF_EXEC_YIELD_CONCURRENCY); 0 never yields. */
  yielded: number;
  /** Growth of the work queue's backlog, in commands a second, that starts a yield (WF_EXEC_YIELD_GROWTH). */
  growthPerSec: number;
  /** The longest yield in a row (WF_EXEC_YIELD_MAX_MS). */
  maxMs: number;
}

export type YieldState = { kind: "full" } | { kind: "yielding"; since: number } | { kind: "spent" };

/**
 * Triggers first: while the executors' work queue grows by `growthPerSec` or more, the executor takes
 * at most `yielded` executions at once instead of `full`, until the backlog stops growing; after
 * `maxMs` in a row it runs at full concurrency all the same ("spent") until its backlog is drained.
 * Deterministic: it sees the backlog only through `observe`, with the time of each sample. Why, and
 * what it costs (docs/operations.md#triggers-first-the-executors-yield).
 */
export class BacklogYield implements ConcurrencyBound {
  #state: YieldState = { kind: "full" };
  #last: { pending: number; at: number } | null = null;
  readonly #listeners = new Set<() => void>();

  constructor(private readonly settings: BacklogYieldSettings) {}

  current(): number {
    // Only a yielded concurrency below the full one ever yields (`yields`).
    return this.#state.kind === "yielding" ? this.settings.yielded : this.settings.full;
  }

  state(): YieldState {
    return this.#state;
  }

  /** Calls `listener` after each change of state (and so of the limit); returns what stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** One sample of the consumer's undelivered messages (num_pending), taken at `at` (ms). */
  observe(pending: number, at: number): void {
    const last = this.#last;
    this.#last = { pending, at };
    if (last === null || at <= last.at || !this.yields()) return;
    const growthPerSec = ((pending - last.pending) * 1_000) / (at - last.at);
    const state = this.#state;
    if (state.kind === "full" && growthPerSec >= this.settings.growthPerSec)
      this.#move({ kind: "yielding", since: at });
    else if (state.kind === "yielding" && growthPerSec <= 0) this.#move({ kind: "full" });
    else if (state.kind === "yielding" && at - state.since >= this.settings.maxMs) this.#move({ kind: "spent" });
    else if (state.kind === "spent" && pending <= this.settings.full) this.#move({ kind: "full" });
  }

  /** Whether it ever yields: a yielded concurrency above 0 and below the full one. */
  yields(): boolean {
    return this.settings.yielded > 0 && this.settings.yielded < this.settings.full;
  }

  #move(next: YieldState): void {
    this.#state = next;
    for (const listener of this.#listeners) listener();
  }
}
