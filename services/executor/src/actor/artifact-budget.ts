import { PLAN_ARTIFACT_BYTES_PER_DAY } from "@wf/shared/auth";
import type { WindowCounters } from "@wf/shared/rate-limit";
import type { OwnerPlans } from "./owner-plans";

/**
 * Each owner's artifact bytes a UTC day, bounded by their plan (docs/sandbox.md#artifacts): artifacts are kept as long
 * as their executions, on the disk of the JetStream store every tenant shares, and nothing else bounded what one
 * owner's steps stored there (50 MB a step, as many steps as their rate limits start). Counted as
 * `artifacts-<ownerId>` in the counters every executor shares.
 */
export class ArtifactBudget {
  constructor(
    private readonly counters: WindowCounters,
    private readonly plans: Pick<OwnerPlans, "of">,
  ) {}

  /**
   * Why `ownerId`'s step may not store `bytes` of artifacts at `now`, or null when it may; counted either way. An
   * owner with no account (the operators' `wf run --owner`) has no plan to bound it.
   */
  async refusal(ownerId: string, bytes: number, now = Date.now()): Promise<string | null> {
    const plan = await this.plans.of(ownerId);
    if (plan === undefined) return null;
    const limit = PLAN_ARTIFACT_BYTES_PER_DAY[plan];
    const { day } = await this.counters.addAmount(`artifacts-${ownerId}`, bytes, now);
    if (day <= limit) return null;
    return `its artifacts (${bytes} bytes) were not stored: with them the owner's artifacts of the UTC day come to ${day} bytes, past the ${plan} plan's ${limit}`;
  }
}
