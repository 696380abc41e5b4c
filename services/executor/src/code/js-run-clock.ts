import type { Plan } from "@wf/shared/auth";
import { poolShares, type PoolShares } from "./pool-shares";

/**
 * How long past its timeout a run may go unanswered before it fails as timed out, its isolate or process deemed stuck.
 */
export const STUCK_GRACE_MS = 5000;

/** A JavaScript host's isolates: `size` run at once, runs that waited go ahead up to `limit` (js-bounds.ts). */
export interface JsPool {
  size: number;
  limit: number;
}

interface Tracked {
  owner: string;
  /** The runs of its owner the host runs at once, by the plan it named: the host admits it by the same. */
  share: number;
  timeoutMs: number;
  /** Its own clock, once its host must have started it. */
  timer: NodeJS.Timeout | undefined;
  overdue(): void;
}

/**
 * Finds a stuck JavaScript host from the runs it ends, never from what it says about the others: a host may be an
 * exploit's, and a "queued" it sent would stop any clock.
 *
 * A host holds each owner's runs to its share of the isolates, in the order sent, and the rest of its runs to its
 * limit, whose last (the reserve) only an owner holding none may take. Runs queue there behind their owner's, which
 * may each take their whole timeout, so a run's own clock (its timeout and STUCK_GRACE_MS) starts only once fewer of
 * its owner's runs sent before it are unanswered than the owner's share, and fewer of all others than the limit (than
 * the limit less the reserve, unless none of its owner's is ahead): a host that works has started it then, within the
 * 100 ms a run waits there before it may go past the host's size. Until then one clock stands for them all: a host
 * with runs unanswered ends one within the longest of their timeouts and STUCK_GRACE_MS of the last it ended.
 */
export class JsRunClock {
  private readonly shares: PoolShares;
  private readonly runs = new Map<number, Tracked>();
  /** Each owner's unanswered runs, in the order sent. */
  private readonly byOwner = new Map<string, number[]>();
  /** Unanswered runs per timeout, for the longest. */
  private readonly timeouts = new Map<number, number>();
  /** Runs with no clock of their own yet: the one clock stands for them. */
  private unclocked = 0;
  private progressAt = 0;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: JsPool,
    /** Every unanswered run is given up: none ended for too long. */
    private readonly onStalled: (why: string) => void,
  ) {
    this.shares = poolShares(pool.size, pool.limit);
  }

  /** `overdue`: the run went unanswered past its own clock. */
  start(id: number, owner: string, plan: Plan | undefined, timeoutMs: number, overdue: () => void): void {
    if (this.runs.size === 0) this.progressAt = performance.now();
    this.runs.set(id, { owner, share: this.shares.share(plan), timeoutMs, timer: undefined, overdue });
    this.unclocked += 1;
    const mine = this.byOwner.get(owner);
    if (mine) mine.push(id);
    else this.byOwner.set(owner, [id]);
    this.timeouts.set(timeoutMs, (this.timeouts.get(timeoutMs) ?? 0) + 1);
    this.armStarted();
    if (this.unclocked > 0) this.watchdog ??= setTimeout(() => this.check(), this.dueIn());
  }

  /** The run was answered (the host ended it), or given up here. */
  end(id: number, answered: boolean): void {
    const run = this.runs.get(id);
    if (!run) return;
    this.runs.delete(id);
    if (run.timer) clearTimeout(run.timer);
    else this.unclocked -= 1;
    const mine = this.byOwner.get(run.owner)!;
    mine.splice(mine.indexOf(id), 1);
    if (mine.length === 0) this.byOwner.delete(run.owner);
    const left = this.timeouts.get(run.timeoutMs)! - 1;
    if (left > 0) this.timeouts.set(run.timeoutMs, left);
    else this.timeouts.delete(run.timeoutMs);
    if (answered) this.progressAt = performance.now();
    if (this.runs.size === 0) {
      clearTimeout(this.watchdog);
      this.watchdog = undefined;
    } else {
      this.armStarted();
    }
  }

  /** Starts the clock of each run its host has started by now, if it works. */
  private armStarted(): void {
    // Past the limit a host holds runs back whoever sent them; the runs are few when it does not.
    if (this.runs.size > this.pool.limit) return;
    for (const ids of this.byOwner.values()) {
      // Fewer of its owner's runs than its share are ahead of it.
      for (const [ahead, id] of ids.entries()) {
        const run = this.runs.get(id)!;
        // An owner's first run may take the reserve; the others, only what the reserve leaves.
        const room = ahead === 0 ? this.pool.limit : this.pool.limit - this.shares.reserve;
        if (run.timer || ahead >= run.share || this.runs.size > room) continue;
        run.timer = setTimeout(run.overdue, run.timeoutMs + STUCK_GRACE_MS);
        this.unclocked -= 1;
      }
    }
  }

  private dueIn(): number {
    const longest = Math.max(...this.timeouts.keys());
    return Math.max(0, this.progressAt + longest + STUCK_GRACE_MS - performance.now());
  }

  private check(): void {
    this.watchdog = undefined;
    // The next run with no clock of its own starts this one again, from the last run ended.
    if (this.unclocked === 0) return;
    const due = this.dueIn();
    if (due > 0) {
      this.watchdog = setTimeout(() => this.check(), due);
      return;
    }
    this.onStalled(
      `it ended none of its ${this.runs.size} JavaScript runs within the longest of their timeouts and ${STUCK_GRACE_MS / 1000} s`,
    );
  }
}
