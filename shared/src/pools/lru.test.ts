import { describe, expect, it } from "vitest";
import { Lru } from "./lru";

describe("Lru", () => {
  it("past its capacity gives up the entry used longest ago, a get counting as a use", () => {
    const lru = new Lru<string, number>(3);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.set("c", 3);
    expect(lru.get("a")).toBe(1);
    lru.set("d", 4);
    expect([lru.get("a"), lru.get("b"), lru.get("c"), lru.get("d")]).toEqual([1, undefined, 3, 4]);
    expect(lru.size).toBe(3);
  });

  it("a set of a held key replaces its value and makes it the newest", () => {
    const lru = new Lru<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.set("a", 10);
    lru.set("c", 3);
    expect([lru.get("a"), lru.get("b"), lru.get("c")]).toEqual([10, undefined, 3]);
  });

  it("deletes and clears", () => {
    const lru = new Lru<string, number>(4);
    lru.set("a", 1);
    lru.set("b", 2);
    lru.delete("a");
    expect([lru.get("a"), lru.size]).toEqual([undefined, 1]);
    lru.clear();
    expect([lru.get("b"), lru.size]).toEqual([undefined, 0]);
  });
});
