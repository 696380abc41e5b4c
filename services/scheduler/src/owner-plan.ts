import type { Store, UserRecord } from "@wf/shared/store";

/** The owner whose schedules run: active and on Pro or higher (docs/scheduling.md); null for another. */
export async function schedulingOwner(store: Store, ownerId: string): Promise<UserRecord | null> {
  const owner = await store.users.get(ownerId);
  return owner !== null && owner.value.plan !== "free" && owner.value.status === "active" ? owner.value : null;
}
