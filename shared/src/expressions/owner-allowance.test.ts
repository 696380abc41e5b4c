import { describe, expect, it } from "vitest";
import { OwnerAllowance } from "./owner-allowance";

/** Adds the owner's jobs until it may add no more: how many it had room for. */
function fill(a: OwnerAllowance, owner: string): number {
  let n = 0;
  for (; a.mayAdd(owner); n++) a.added(owner);
  return n;
}

describe("owner allowance", () => {
  it("an owner starts at one job per host, and others are not held by it", () => {
    const a = new OwnerAllowance(2, 32, 50);
    expect(fill(a, "heavy")).toBe(2);
    expect(a.mayAdd("light")).toBe(true);
  });

  it("each quick answer allows one more, up to the most; a slow one brings it back to the least", () => {
    const a = new OwnerAllowance(2, 4, 50);
    fill(a, "o");
    a.removed("o", 5);
    expect(fill(a, "o")).toBe(2); // 1 in the hosts, 3 allowed
    a.removed("o", 5);
    a.removed("o", 5);
    expect(fill(a, "o")).toBe(3); // 1 in the hosts, 4 allowed
    a.removed("o", 5);
    expect(fill(a, "o")).toBe(1); // never more than 4
    a.removed("o", 50);
    expect(a.mayAdd("o")).toBe(false); // 3 in the hosts, 2 allowed
    a.removed("o", 5);
    expect(fill(a, "o")).toBe(1); // 2 in the hosts, 3 allowed: growing again
  });

  it("a job that left without running changes nothing but the count", () => {
    const a = new OwnerAllowance(2, 32, 50);
    fill(a, "o");
    a.removed("o", undefined);
    expect(fill(a, "o")).toBe(1);
  });

  it("an owner with nothing in the hosts starts over", () => {
    const a = new OwnerAllowance(2, 32, 50);
    fill(a, "o");
    a.removed("o", 5);
    a.removed("o", 5);
    expect(fill(a, "o")).toBe(2);
  });
});
