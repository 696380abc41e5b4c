import { describe, expect, it } from "vitest";
import { FairQueue } from "./fair-queue";

const anyone = () => true;

function takeAll(q: FairQueue<string>, may: (owner: string) => boolean = anyone): string[] {
  const out: string[] = [];
  for (let item = q.take(may); item !== undefined; item = q.take(may)) out.push(item);
  return out;
}

describe("fair queue", () => {
  it("serves owners in turn, each owner's items in order", () => {
    const q = new FairQueue<string>();
    for (let i = 1; i <= 4; i++) q.push("heavy", `h${i}`);
    q.push("light", "l1");
    q.push("other", "o1");
    q.push("light", "l2");
    expect(q.size).toBe(7);
    expect(takeAll(q)).toEqual(["h1", "l1", "o1", "h2", "l2", "h3", "h4"]);
    expect(q.size).toBe(0);
  });

  it("removes an item still waiting, wherever its owner stands; one taken already is not there", () => {
    const q = new FairQueue<string>();
    for (const item of ["a1", "a2", "a3"]) q.push("a", item);
    q.push("b", "b1");
    expect(q.take(anyone)).toBe("a1");
    expect([q.remove("a", "a1"), q.remove("a", "a3"), q.remove("b", "b1"), q.remove("b", "b1")]).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(q.size).toBe(1);
    expect(takeAll(q)).toEqual(["a2"]);
  });

  it("an owner that starts waiting goes ahead of one already served with more waiting", () => {
    const q = new FairQueue<string>();
    q.push("a", "a1");
    q.push("a", "a2");
    expect(q.take(anyone)).toBe("a1");
    q.push("b", "b1");
    expect(takeAll(q)).toEqual(["b1", "a2"]);
  });

  it("skips owners that may not take more, leaving their items in order", () => {
    const q = new FairQueue<string>();
    q.push("full", "f1");
    q.push("full", "f2");
    q.push("free", "x1");
    expect(takeAll(q, (owner) => owner !== "full")).toEqual(["x1"]);
    expect(q.size).toBe(2);
    expect(takeAll(q)).toEqual(["f1", "f2"]);
  });

  it("an item put back goes ahead of its owner's others", () => {
    const q = new FairQueue<string>();
    q.push("a", "a2");
    q.putBack("a", "a1");
    q.putBack("b", "b1");
    expect(takeAll(q)).toEqual(["a1", "b1", "a2"]);
  });

  it("tells whether an owner other than one has items waiting, in either order of arrival", () => {
    const q = new FairQueue<string>();
    expect(q.hasOtherThan("a")).toBe(false);
    q.push("a", "a1");
    q.push("a", "a2");
    q.take(anyone);
    expect(q.hasOtherThan("a")).toBe(false);
    q.push("b", "b1");
    expect(q.hasOtherThan("a")).toBe(true);
    expect(q.hasOtherThan("b")).toBe(true);
    q.remove("a", "a2");
    expect(q.hasOtherThan("b")).toBe(false);
  });

  it("drains every item", () => {
    const q = new FairQueue<string>();
    q.push("a", "a1");
    q.push("b", "b1");
    expect(q.drain().sort()).toEqual(["a1", "b1"]);
    expect(q.size).toBe(0);
    expect(q.take(anyone)).toBeUndefined();
  });
});
