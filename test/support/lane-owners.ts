import { ownerLane, ownerLanes } from "@wf/shared/execution";

/** The owner whose backlog the lane tests queue. */
export const FLOOD = "owner-flood";

/** An owner whose first lane is not `flooding`'s: its commands wait in a lane apart. */
export function quietOwner(flooding: string = FLOOD): string {
  return Array.from({ length: 64 }, (_, i) => `owner-quiet-${i}`).find((o) => ownerLane(o) !== ownerLane(flooding))!;
}

/** An owner whose first lane is `flooding`'s, and whose second lane is neither of `flooding`'s: it starts beside. */
export function sharingOwner(flooding: string = FLOOD): string {
  return Array.from({ length: 4096 }, (_, i) => `owner-sharing-${i}`).find(
    (o) => ownerLane(o) === ownerLane(flooding) && !ownerLanes(flooding).includes(ownerLanes(o)[1]),
  )!;
}
