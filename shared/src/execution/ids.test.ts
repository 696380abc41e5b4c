import { describe, expect, it } from "vitest";
import { derivedId, isSubjectToken, newId } from "./ids";

describe("derivedId", () => {
  const at = Date.UTC(2025, 0, 1);

  it("is the same for the same time and seed, and differs when either differs", () => {
    expect(derivedId(at, "schedule:w1:1")).toBe(derivedId(at, "schedule:w1:1"));
    expect(derivedId(at, "schedule:w1:2")).not.toBe(derivedId(at, "schedule:w1:1"));
    expect(derivedId(at + 1, "schedule:w1:1")).not.toBe(derivedId(at, "schedule:w1:1"));
  });

  it("has newId's layout: a subject token that sorts by its time", () => {
    const id = derivedId(at, "seed");
    expect(id).toHaveLength(newId(at).length);
    expect(id.slice(0, 10)).toBe(newId(at).slice(0, 10));
    expect(isSubjectToken(id)).toBe(true);
    expect(derivedId(at + 1_000, "a") > derivedId(at, "z")).toBe(true);
  });
});

describe("newId", () => {
  it("never repeats within one millisecond, across many refills of its random pool", () => {
    const at = Date.UTC(2025, 0, 1);
    const ids = Array.from({ length: 5_000 }, () => newId(at));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => id.startsWith(ids[0]!.slice(0, 10)) && isSubjectToken(id))).toBe(true);
  });
});
