import { describe, expect, it } from "vitest";
import { FairSlots } from "./fair-slots";

const never = 60_000;

/** Acquires for `owner` and records the order slots were granted in. */
function taker(slots: FairSlots, order: string[], shares: Record<string, number> = {}) {
  return (owner: string, signal?: AbortSignal) =>
    slots.acquire(owner, shares[owner] ?? 1, signal).then((held) => (held ? order.push(owner) : 0));
}

describe("FairSlots", () => {
  it("serves waiting owners in turn, not in arrival order", async () => {
    const slots = new FairSlots({ size: 1, maxWaitMs: never, limit: 1, reserve: 0 });
    const order: string[] = [];
    const take = taker(slots, order);
    await take("a");
    const waiting = [take("a"), take("a"), take("a"), take("b"), take("c")];
    for (let i = 0; i < 5; i++) {
      slots.release(order.at(-1)!);
      await Promise.resolve();
    }
    await Promise.all(waiting);
    expect(order).toEqual(["a", "a", "b", "c", "a", "a"]);
  });

  it("holds an owner to its share while another owner's waiter takes the free slot", async () => {
    const slots = new FairSlots({ size: 4, maxWaitMs: never, limit: 4, reserve: 0 });
    const order: string[] = [];
    const take = taker(slots, order, { free: 1, pro: 4 });
    await take("free");
    let second = false;
    const waiting = take("free").then(() => (second = true));
    await take("pro");
    await take("pro");
    expect([order, second, slots.wouldWait("free", 1), slots.wouldWait("pro", 4)]).toEqual([
      ["free", "pro", "pro"],
      false,
      true,
      true,
    ]);
    slots.release("free");
    await waiting;
    expect(order).toEqual(["free", "pro", "pro", "free"]);
  });

  it("lets an overdue waiter past the size, never past the limit or its owner's share", async () => {
    const slots = new FairSlots({ size: 1, maxWaitMs: 20, limit: 3, reserve: 0 });
    const order: string[] = [];
    const take = taker(slots, order, { a: 2, b: 3, c: 3 });
    await take("a");
    // Both wait past maxWaitMs: a's second goes past the size (a's share is 2), a's third cannot.
    await Promise.all([take("a"), take("b")]);
    expect(order.sort()).toEqual(["a", "a", "b"]);
    let fourth = false;
    const waiting = take("c").then(() => (fourth = true));
    await new Promise((r) => setTimeout(r, 60));
    expect(fourth).toBe(false);
    slots.release("a");
    await waiting;
    expect(order.at(-1)).toBe("c");
  });

  it("grants a weighed acquire once that many slots are free, and past the size once overdue", async () => {
    const slots = new FairSlots({ size: 4, maxWaitMs: 30, limit: 8, reserve: 0 });
    await slots.acquire("a", 8, undefined, 3);
    // Two more do not fit the size of 4: it waits until a's three come back, or it is overdue.
    let heavy = false;
    const waiting = slots.acquire("b", 8, undefined, 2).then(() => (heavy = true));
    expect(slots.wouldWait("c", 8, 1)).toBe(true);
    await Promise.resolve();
    expect(heavy).toBe(false);
    await waiting;
    // Overdue: 3 + 2 within the limit of 8; a light one now waits behind the held five.
    expect(slots.wouldWait("c", 8, 1)).toBe(true);
    slots.release("a", 3);
    slots.release("b", 2);
    expect(slots.wouldWait("c", 8, 4)).toBe(false);
    expect(slots.wouldWait("c", 3, 4)).toBe(true);
  });

  it("drops an aborted waiter, and its place no longer holds back the ones behind it", async () => {
    const slots = new FairSlots({ size: 1, maxWaitMs: never, limit: 1, reserve: 0 });
    const order: string[] = [];
    const take = taker(slots, order);
    await take("a");
    const controller = new AbortController();
    const aborted = slots.acquire("b", 1, controller.signal);
    const next = take("c");
    controller.abort();
    expect(await aborted).toBe(false);
    slots.release("a");
    await next;
    expect(order).toEqual(["a", "c"]);
    expect(await slots.acquire("d", 1, AbortSignal.abort())).toBe(false);
  });

  it("keeps the reserve for an owner holding none, whatever the others' shares add up to", async () => {
    // Two owners whose shares (3 each) add up to more than the limit (4), as two Team owners' do.
    const slots = new FairSlots({ size: 4, maxWaitMs: never, limit: 4, reserve: 1 });
    const order: string[] = [];
    const take = taker(slots, order, { a: 3, b: 3, c: 3, d: 3 });
    await take("a");
    await take("a");
    await take("b");
    // Taking a fourth would leave nothing for a newcomer: b, holding one, waits.
    let bSecond = false;
    const bWaits = take("b").then(() => (bSecond = true));
    await Promise.resolve();
    expect([order, bSecond]).toEqual([["a", "a", "b"], false]);
    await take("c");
    // Full: the next newcomer waits for one slot to come back, and has it before b's second.
    const dWaits = take("d");
    slots.release("a");
    await dWaits;
    expect([order, bSecond]).toEqual([["a", "a", "b", "c", "d"], false]);
    // a, b and d hold one each: b's second would leave nothing free; a second slot back, it goes.
    slots.release("c");
    await Promise.resolve();
    expect(bSecond).toBe(false);
    slots.release("d");
    await bWaits;
    expect(order.at(-1)).toBe("b");
  });
});
