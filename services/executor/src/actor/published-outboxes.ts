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
  /** Parks being written and published here, by execution. */
  private readonly settling = new Map<string, Promise<unknown>>();

  /**
   * `settle` writes and publishes `snap`, a park; its outbox is then noted. Until it is, `settled` waits for it: a
   * cancel handled here beside the run (which it does not wait for) reads the park once it is noted, not between its
   * write and its note, and does not publish its events again.
   */
  async park(snap: ExecutionSnapshot, settle: Promise<void>): Promise<void> {
    this.settling.set(
      snap.id,
      settle.catch(() => undefined),
    );
    try {
      await settle;
      this.note(snap);
    } finally {
      this.settling.delete(snap.id);
    }
  }

  /** Resolves once the park of `executionId` being settled here (park), if any, is. */
  async settled(executionId: string): Promise<void> {
    await this.settling.get(executionId);
  }

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
