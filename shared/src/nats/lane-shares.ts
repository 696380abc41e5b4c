import { START_LANES } from "../execution/start-lanes";
import type { ConcurrencyBound } from "./command-consumer";

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
 * One bound on the messages in hand (`total`: the executor's WF_EXEC_CONCURRENCY, less while it yields; the approvals'
 * and the timers' fixed bound), shared by a service's lanes' consumers and the one of the commands in no lane, served
 * in turn: lanes with messages waiting split it evenly, and a lane over its share takes nothing until it is back under
 * it (docs/architecture.md#start-lanes). The bound holds, but for the moment lanes woken by one free
 * slot fetch at once, and for a lane holding nothing, which may take one message past it (unless held to a yield):
 * however long other owners' executions hold every slot, a start or resume of an owner with nothing in hand (and a
 * cancel) is taken at once, and the bound is passed by at most one message per lane.
 *
 * A yield is for the owners whose starts flood in, not for the others: while the bound is under `full`, only lanes with
 * more than a few messages waiting (their even share of `full`) are held to it; a lane with no more than that is served
 * as if nobody yielded, within `full`. One owner's flood then slows its own executions, not a quiet owner's.
 */
export class LaneShares {
  readonly #lanes: Lane[] = [];
  #settled = 0;

  /** Messages waiting in a lane at or under which it is not held to a yield. */
  readonly #few: number;

  /** `full`: the bound when nobody yields (WF_EXEC_CONCURRENCY); `total` is under it while the executor yields. */
  constructor(
    private readonly total: ConcurrencyBound,
    private readonly full: number,
  ) {
    this.#few = Math.ceil(full / START_LANES);
    total.onChange(() => this.#changed());
  }

  /** Lanes sharing `bound`, which never changes (nobody yields). */
  static fixed(bound: number): LaneShares {
    return new LaneShares({ current: () => bound, onChange: () => () => undefined }, bound);
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
    const fullRoom = this.full - this.inHand();
    if (total >= this.full || lane.pending <= this.#few)
      return Math.max(lane.inHand === 0 ? 1 : 0, this.#share(lane, this.#lanes, this.full, fullRoom));
    // Held to the yield, with the other lanes flooded: what they hold counts against it, and never past `full`.
    const held = this.#lanes.filter((l) => l.pending > this.#few);
    const room = total - held.reduce((sum, l) => sum + l.inHand, 0);
    return this.#share(lane, held, total, Math.min(room, fullRoom));
  }

  /** A lane's bound among `lanes` sharing `bound`, with `room` free under it. */
  #share(lane: Lane, lanes: Lane[], bound: number, room: number): number {
    if (lane.pending === 0) return room > 0 ? lane.inHand + 1 : lane.inHand;
    const waiting = lanes.filter((l) => l.pending > 0).length;
    const share = Math.max(1, Math.ceil(bound / waiting));
    return Math.min(share, lane.inHand + Math.max(room, 0));
  }

  #changed(): void {
    for (const lane of this.#lanes) for (const listener of lane.listeners) listener();
  }
}
