import type { Plan } from "@wf/shared/auth";
import { sandboxPool } from "../ops/sandbox-metrics";
import { FairSlots } from "./fair-slots";
import { poolShares, type PoolShares } from "./pool-shares";

/**
 * A run takes a slot for each of these characters its request holds (its variables and input, mostly), so that what
 * waits at a runner is bounded in size as well as in runs. A light run (a few hundred characters) takes one.
 */
export const SLOT_CHARS = 256 * 1024;
/**
 * The slots owners holding some leave free for an owner holding none (FairSlots): a new owner's first run of up to
 * 1 MB of request goes to the runner at once however long the others' runs take there; a larger one waits for room.
 */
const RESERVE_SLOTS = 4;

/**
 * Which runs a connection sends its runner (or JavaScript host) now: owners take turns at `size` slots, each up to its
 * plan's share, and a run that waited `maxWaitMs` goes past the size up to twice it; the others wait here, in the
 * executor, where a wait costs a promise rather than the runner's memory.
 */
export class RunAdmission {
  private readonly slots: FairSlots;
  private readonly shares: PoolShares;

  constructor(
    private readonly size: number,
    maxWaitMs: number,
  ) {
    this.shares = poolShares(size, 2 * size, RESERVE_SLOTS);
    this.slots = new FairSlots({ size, maxWaitMs, limit: this.shares.limit, reserve: this.shares.reserve });
  }

  /** The slots a run whose request holds `chars` characters takes: at most the size, so that it always fits. */
  weightOf(chars: number): number {
    return Math.min(this.size, Math.max(1, Math.ceil(chars / SLOT_CHARS)));
  }

  /** The release of `owner`'s run of `chars` characters where it may go now, with no wait; else undefined. */
  admitNow(owner: string, plan: Plan | undefined, chars: number): (() => void) | undefined {
    const weight = this.weightOf(chars);
    if (!this.slots.tryAcquire(owner, this.shares.share(plan), weight)) return undefined;
    return () => this.slots.release(owner, weight);
  }

  /**
   * Resolves with the release once `owner`'s run of `chars` characters may go, or undefined when `signal` aborted
   * first. A run that waited is counted in wf_sandbox_run_wait_seconds.
   */
  async admit(
    owner: string,
    plan: Plan | undefined,
    chars: number,
    signal?: AbortSignal,
  ): Promise<(() => void) | undefined> {
    const share = this.shares.share(plan);
    const weight = this.weightOf(chars);
    const queued = this.slots.wouldWait(owner, share, weight);
    const since = queued ? performance.now() : 0;
    if (!(await this.slots.acquire(owner, share, signal, weight))) return undefined;
    if (queued) sandboxPool.waited((performance.now() - since) / 1000);
    return () => this.slots.release(owner, weight);
  }
}
