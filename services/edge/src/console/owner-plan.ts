import type { Plan } from "@wf/shared/auth";
import { ownerPlan as storedOwnerPlan, type Store } from "@wf/shared/store";

/**
 * The plan of `ownerId`, whose bounds the steps it owns run within (an editor's save, a rerun's edited definition are
 * checked against them): the caller's own, or read (an account gone counts as `free`).
 */
export function ownerPlan(store: Store, ownerId: string, caller: { userId: string; plan: Plan }): Promise<Plan> {
  return ownerId === caller.userId ? Promise.resolve(caller.plan) : storedOwnerPlan(store.users, ownerId);
}
