import { Slots } from "../slots";
import { FIRST_STEP_UID, STEP_SLOTS } from "./uid-block";

/**
 * The step uids of one runner: each running step (and each step process made ahead of its step)
 * holds one of its own, given back when every process of the step is gone, so that no two steps
 * that run at once share a uid. Past
 * STEP_SLOTS steps at once, a step waits for a uid.
 */
export class UidSlots {
  private readonly free = Array.from({ length: STEP_SLOTS }, (_, i) => i);
  private readonly slots = new Slots(STEP_SLOTS);

  /** A slot (0-based), or undefined when `signal` aborted first. */
  async acquire(signal?: AbortSignal): Promise<number | undefined> {
    if (!(await this.slots.acquire(signal))) return undefined;
    return this.take();
  }

  /** A slot if one is free now, without waiting. */
  tryAcquire(): number | undefined {
    return this.slots.tryAcquire() ? this.take() : undefined;
  }

  release(slot: number): void {
    this.free.push(slot);
    this.slots.release();
  }

  private take(): number {
    // The longest free first: a uid is reused as late as possible.
    return this.free.shift()!;
  }
}

/** A slot's uid in the sandbox's user namespace. */
export function stepUid(slot: number): number {
  return FIRST_STEP_UID + slot;
}
