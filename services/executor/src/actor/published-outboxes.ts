import type { ExecutionSnapshot } from "@wf/shared/execution";
import { Lru } from "@wf/shared/pools";

/** Parks remembered: about 100 bytes each. */
const REMEMBERED = 10_000;

/**
 * The outboxes of the parks this process wrote and saw acknowledged by the stream, by execution: a resume taken by
 * the process that parked the execution need not publish its outbox again (a publish round trip, which the stream
 * drops as a duplicate). What is known dies with the process, so a resume after a crash, or on another replica,
 * publishes it. An outbox is known by its last event's id: any later write that carries events numbers them after it.
 */
export class PublishedOutboxes {
  private readonly lastIds = new Lru<string, string>(REMEMBERED);

  /** `snap` was written, and its outbox's events acknowledged. */
  note(snap: ExecutionSnapshot): void {
    const last = snap.outbox.at(-1);
    if (last) this.lastIds.set(snap.id, last.id);
  }

  /** Whether the outbox of `snap` (as read) is one noted: known to be in the stream. Forgotten once asked. */
  take(snap: ExecutionSnapshot): boolean {
    const noted = this.lastIds.get(snap.id);
    this.lastIds.delete(snap.id);
    return noted !== undefined && noted === snap.outbox.at(-1)?.id;
  }
}
