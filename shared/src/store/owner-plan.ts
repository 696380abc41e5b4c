import type { Plan } from "../auth/plans";
import type { UserRepo } from "./port";

/**
 * The plan of `ownerId`, whose bounds the steps it owns run within (a save, an import, a rerun's edited definition are
 * checked against them). An owner's account gone counts as `free`, as its steps would run.
 */
export async function ownerPlan(users: Pick<UserRepo, "get">, ownerId: string): Promise<Plan> {
  return (await users.get(ownerId))?.value.plan ?? "free";
}
