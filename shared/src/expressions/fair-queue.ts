/**
 * Work waiting, one queue per owner, served in turn: an owner that queues a thousand jobs waits
 * behind each other owner's next one, not ahead of everyone's. An owner that starts waiting is
 * served before the owners already served once with more left to wait (a lone expression is
 * not held behind a turn of each backlog), and then takes its turn among them: an owner served
 * goes to the back.
 */
export class FairQueue<T> {
  /** Owners that had nothing waiting, in the order they came (a Map keeps its insertion order). */
  private readonly arrived = new Map<string, T[]>();
  /** Owners served with more left waiting, in turn order. */
  private readonly turns = new Map<string, T[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(owner: string, item: T): void {
    const queue = this.arrived.get(owner) ?? this.turns.get(owner);
    if (queue) queue.push(item);
    else this.arrived.set(owner, [item]);
    this.count++;
  }

  /** Puts an item taken earlier back ahead of its owner's others: it was taken first, it goes first. */
  putBack(owner: string, item: T): void {
    const queue = this.arrived.get(owner) ?? this.turns.get(owner);
    if (queue) queue.unshift(item);
    else this.arrived.set(owner, [item]);
    this.count++;
  }

  /** The oldest item of the first owner in turn that `may` allow; that owner goes to the back. */
  take(may: (owner: string) => boolean): T | undefined {
    for (const owners of [this.arrived, this.turns]) {
      for (const [owner, queue] of owners) {
        if (!may(owner)) continue;
        const item = queue.shift()!;
        this.count--;
        owners.delete(owner);
        if (queue.length > 0) this.turns.set(owner, queue);
        return item;
      }
    }
    return undefined;
  }

  /** Takes `item` out of its owner's queue; false when it is not waiting (taken already, or never put). */
  remove(owner: string, item: T): boolean {
    const queue = this.arrived.get(owner) ?? this.turns.get(owner);
    const at = queue ? queue.indexOf(item) : -1;
    if (!queue || at < 0) return false;
    queue.splice(at, 1);
    this.count--;
    if (queue.length === 0) {
      this.arrived.delete(owner);
      this.turns.delete(owner);
    }
    return true;
  }

  /** Whether an owner other than `owner` has an item waiting. */
  hasOtherThan(owner: string): boolean {
    for (const owners of [this.arrived, this.turns]) for (const o of owners.keys()) if (o !== owner) return true;
    return false;
  }

  /** Every item, emptying the queue. */
  drain(): T[] {
    const items = [...this.arrived.values(), ...this.turns.values()].flat();
    this.arrived.clear();
    this.turns.clear();
    this.count = 0;
    return items;
  }
}
