import type { Plan } from "@wf/shared/auth";
import type { Store } from "@wf/shared/store";

/**
 * The plan of `ownerId`, whose bounds the steps it owns run within (an editor's save, a rerun's edited definition are
 * checked against them): the caller's own, or read. An owner's account gone counts as `free`, as its steps would run.
 */
export async function ownerPlan(store: Store, ownerId: string, caller: { userId: string; plan: Plan }): Promise<Plan> {
  if (ownerId === caller.userId) return caller.plan;
  return (await store.users.get(ownerId))?.value.plan ?? "free";
}
