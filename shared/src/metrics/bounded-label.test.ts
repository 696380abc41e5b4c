import { describe, expect, it } from "vitest";
import { BoundedLabel } from "./bounded-label";

describe("BoundedLabel", () => {
  it("keeps the first values it sees and counts any later one as other", () => {
    const label = new BoundedLabel(2);
    expect(["a", "b", "c", "a", "b", "d"].map((v) => label.of(v))).toEqual(["a", "b", "other", "a", "b", "other"]);
  });
});
