import type { ConcurrencyBound } from "@wf/shared/nats";

/** What one consumer reports of itself to its bound (consumeCommands' `observe`). */
interface Lane {
  inHand: number;
  /**
   * Messages its consumer holds beyond those delivered, as the last one delivered said; 0 once a fetch came back empty.
   */
  pending: number;
  listeners: Set<() => void>;
}

/**
 * One bound on the messages in hand (`total`: WF_EXEC_CONCURRENCY, less while the executor yields),
 * shared by the start lanes' consumers and the other commands', served in turn: lanes with messages
 * waiting split it evenly, and a lane over its share takes nothing until it is back under it
 * (docs/architecture.md#start-lanes). The bound holds, but for the moment lanes woken by one free
 * slot fetch at once.
 */
export class LaneShares {
  readonly #lanes: Lane[] = [];
  #settled = 0;

  constructor(private readonly total: ConcurrencyBound) {
    total.onChange(() => this.#changed());
  }

  /** The bound of one more consumer. */
  lane(): ConcurrencyBound {
    const lane: Lane = { inHand: 0, pending: 0, listeners: new Set() };
    this.#lanes.push(lane);
    return {
      current: () => this.#bound(lane),
      onChange: (listener) => {
        lane.listeners.add(listener);
        return () => lane.listeners.delete(listener);
      },
      observe: (inHand, pending) => {
        if (inHand < lane.inHand) this.#settled += lane.inHand - inHand;
        lane.inHand = inHand;
        if (pending !== undefined) lane.pending = pending;
        this.#changed();
      },
    };
  }

  /** Messages in hand, all consumers together. */
  inHand(): number {
    return this.#lanes.reduce((sum, l) => sum + l.inHand, 0);
  }

  /** Messages settled so far, all consumers together. */
  settled(): number {
    return this.#settled;
  }

  #bound(lane: Lane): number {
    const total = this.total.current();
    const room = total - this.inHand();
    if (lane.pending === 0) return room > 0 ? lane.inHand + 1 : lane.inHand;
    const waiting = this.#lanes.filter((l) => l.pending > 0).length;
    const share = Math.max(1, Math.ceil(total / waiting));
    return Math.min(share, lane.inHand + Math.max(room, 0));
  }

  #changed(): void {
    for (const lane of this.#lanes) for (const listener of lane.listeners) listener();
  }
}
