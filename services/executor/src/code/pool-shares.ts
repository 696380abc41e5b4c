import type { Plan } from "@wf/shared/auth";
import type { CodeRequest } from "./types";

/**
 * What part of a pool's limit one owner may hold at once, by plan: no plan holds it all, so
 * another owner always finds room beside any one owner's steps stuck in loops. Every owner may
 * hold the pool's size (what it runs before anyone waited long): a lone owner is never held
 * below what the pool would run for it. A request that names no plan (a runner's own tests, a
 * caller that knows none) counts as `free`. The shares of two owners may add up to more than the
 * limit (two Team owners: 3/2 of it): the reserve (FairSlots) is what keeps room for a third.
 */
const PLAN_SHARE: Record<Plan, number> = { free: 1 / 4, pro: 1 / 2, team: 3 / 4, enterprise: 3 / 4 };

/**
 * The slots of a pool's limit that owners holding slots leave free for an owner holding none: one, so that a new
 * owner's first step waits for no more than one step of those holding the pool to end (within its plan's
 * PLAN_CODE_TIMEOUT_SECONDS), however long the others run. One slot is a light run's (a step, an isolate's call).
 */
export const POOL_RESERVE = 1;

export interface PoolShares {
  /** Slots held at once, at most, whatever the waits. */
  limit: number;
  /** Slots of the limit only an owner holding none may take (FairSlots). */
  reserve: number;
  /** The slots `plan`'s owners may each hold at once. */
  share(plan: Plan | undefined): number;
}

/**
 * The shares of a pool that runs `size` at once before anyone waited long, and `limit` at most, of which `reserve`
 * only for an owner holding none: no owner's share passes the rest of the limit (one at least, its first).
 */
export function poolShares(size: number, limit: number, reserve = POOL_RESERVE): PoolShares {
  const most = Math.max(1, limit - reserve);
  return {
    limit,
    reserve,
    share: (plan) => Math.min(most, Math.max(size, Math.floor(limit * PLAN_SHARE[plan ?? "free"]))),
  };
}

/** The shares of each plan, for the start-up log: "8 (free), 16 (pro), 24 (team, enterprise)". */
export function describeShares(shares: PoolShares): string {
  return `${shares.share("free")} (free), ${shares.share("pro")} (pro), ${shares.share("team")} (team, enterprise)`;
}

/** Whose turn a run takes: its owner's (runs of no owner share one turn). */
export function ownerOf(req: Pick<CodeRequest, "owner">): string {
  return req.owner ?? "";
}
