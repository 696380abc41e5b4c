import type { Plan } from "@wf/shared/auth";
import type { OwnerPlans } from "../actor/owner-plans";
import { FairSlots } from "../code/fair-slots";

/**
 * The model calls one owner may have in flight on an executor, by plan (never more than the total): every owner's calls
 * go out on the operator's provider keys, whose rate limits they share, so one owner's fan-out must not take them all.
 */
export const PLAN_MODEL_CALLS: Record<Plan, number> = { free: 4, pro: 16, team: 32, enterprise: 32 };

/** setTimeout's longest delay: with the size at the limit, a waiter's being overdue would let it past nothing. */
const NEVER_OVERDUE_MS = 2 ** 31 - 1;

/**
 * The places for model calls (LLM requests, their retries included) on one executor: `total` at once, each owner up to
 * its plan's share, owners taking turns at free places (docs/sandbox.md#what-tenants-share). A call of no known plan
 * counts as `free`.
 */
export class ModelCalls {
  private readonly slots: FairSlots;

  constructor(
    readonly total: number,
    private readonly plans: Pick<OwnerPlans, "of">,
  ) {
    this.slots = new FairSlots({
      size: total,
      limit: total,
      maxWaitMs: NEVER_OVERDUE_MS,
      // No reserve: a model call ends within its provider's timeout, not an owner's code step's.
      reserve: 0,
    });
  }

  share(plan: Plan | undefined): number {
    return Math.min(this.total, PLAN_MODEL_CALLS[plan ?? "free"]);
  }

  /**
   * Makes `call` once `owner` has a place, and gives the place back when it settles; `waitedMs`: how long it waited for
   * it. An abort of `signal` while it waits (a cancel, the step's timeout) takes it out of the queue and rejects with
   * the signal's reason.
   */
  async run<T>(owner: string, signal: AbortSignal, call: () => Promise<T>): Promise<{ value: T; waitedMs: number }> {
    const share = this.share(await this.plans.of(owner));
    const asked = Date.now();
    if (!(await this.slots.acquire(owner, share, signal))) throw signal.reason;
    const waitedMs = Date.now() - asked;
    try {
      return { value: await call(), waitedMs };
    } finally {
      this.slots.release(owner);
    }
  }
}
