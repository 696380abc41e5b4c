import { describe, expect, it } from "vitest";
import { OwnerLru } from "./owner-lru.mjs";

describe("OwnerLru", () => {
  it("alone, an owner has all the room, and gives up its least recently used entry past it", () => {
    const lru = new OwnerLru<string, number>(3, 100);
    lru.set("a", "o", 1, 1);
    lru.set("b", "o", 2, 1);
    lru.set("c", "o", 3, 1);
    expect(lru.get("a")).toBe(1);
    expect(lru.set("d", "o", 4, 1)).toEqual([["b", 2]]);
    expect([lru.has("a"), lru.has("b"), lru.has("c"), lru.has("d")]).toEqual([true, false, true, true]);
    expect(lru.count).toBe(3);
  });

  it("takes room from the owner holding the most, not from one holding less", () => {
    const lru = new OwnerLru<string, string>(10, 1_000);
    for (let i = 0; i < 3; i++) lru.set(`quiet${i}`, "quiet", "q", 10);
    const pushed: string[] = [];
    for (let i = 0; i < 50; i++) pushed.push(...lru.set(`flood${i}`, "flood", "f", 10).map(([key]) => key));
    expect(pushed).toHaveLength(43);
    expect(pushed.every((key) => key.startsWith("flood"))).toBe(true);
    expect(["quiet0", "quiet1", "quiet2"].every((key) => lru.has(key))).toBe(true);
    // The flood's newest are kept: the oldest went first.
    expect(lru.has("flood49") && lru.has("flood43") && !lru.has("flood42")).toBe(true);
  });

  it("weighs size as well as count, and never pushes out the entry being set", () => {
    const lru = new OwnerLru<string, number>(100, 100);
    lru.set("small1", "many", 1, 10);
    lru.set("small2", "many", 2, 10);
    lru.set("big", "one", 3, 70);
    // 100 + 20 over: the big one's owner holds the most (0.01 + 0.9 against 0.02 + 0.2).
    expect(lru.set("small3", "many", 4, 20)).toEqual([["big", 3]]);
    expect(lru.set("huge", "one", 5, 200)).toEqual([
      ["small1", 1],
      ["small2", 2],
      ["small3", 4],
    ]);
    expect(lru.has("huge")).toBe(true);
    expect(lru.size).toBe(200);
  });

  it("replaces what a key held, and forgets a deleted one", () => {
    const lru = new OwnerLru<string, number>(10, 100);
    lru.set("k", "a", 1, 30);
    lru.set("k", "b", 2, 40);
    expect(lru.get("k")).toBe(2);
    expect(lru.size).toBe(40);
    lru.delete("k");
    expect(lru.get("k")).toBeUndefined();
    expect([lru.count, lru.size]).toEqual([0, 0]);
  });
});
