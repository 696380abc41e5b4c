import { inLane, newId } from "@wf/shared/execution";
import { askedLane } from "@wf/shared/nats";
import type { ServiceConnection } from "./connection";

/**
 * A new execution's id for a start of `ownerId`'s, in the lane the edge would put it in: the owner's first, or its
 * second while the first has a backlog (docs/architecture.md#start-lanes).
 */
export async function newStartId(conn: ServiceConnection, ownerId: string): Promise<string> {
  return inLane(newId(), await askedLane(conn.jsm, conn.config.WF_NAMESPACE, ownerId));
}
