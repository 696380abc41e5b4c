import type { Store } from "@wf/shared/store";

/** Schedules run for active owners on Pro or higher (docs/scheduling.md). */
export async function ownerMaySchedule(store: Store, ownerId: string): Promise<boolean> {
  const owner = await store.users.get(ownerId);
  return owner !== null && owner.value.plan !== "free" && owner.value.status === "active";
}
