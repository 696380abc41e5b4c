import { describe, expect, it } from "vitest";
import { fromKeyToken, keyToken, sortableNumber } from "./key-codec";

describe("keyToken", () => {
  const samples = ["abc-DEF_123", "", "=", "=2E", "a.b", "ops@example.com", "a b*>", "Ünïcode ✓", "日本語", "😀."];

  it("leaves ids that are subject tokens as they are", () => {
    expect(keyToken("01jabcxyz_-Q")).toBe("01jabcxyz_-Q");
  });

  it("makes every string a single valid key token, and decodes back", () => {
    for (const s of samples) {
      const token = keyToken(s);
      expect(token, s).toMatch(/^[A-Za-z0-9_=-]+$/);
      expect(fromKeyToken(token), s).toBe(s);
    }
  });

  it("never maps two strings to one token", () => {
    expect(new Set(samples.map(keyToken)).size).toBe(samples.length);
  });
});

describe("sortableNumber", () => {
  it("sorts as strings the way the numbers sort", () => {
    const numbers = [-1e15, -1.5, -1, -0.25, 0, 1e-9, 0.5, 1, 2, 1_700_000_000_000, 1_700_000_000_000.5, 2 ** 53];
    const shuffled = [...numbers].reverse();
    const byToken = shuffled.sort((a, b) => (sortableNumber(a) < sortableNumber(b) ? -1 : 1));
    expect(byToken).toEqual(numbers);
    for (const n of numbers) expect(sortableNumber(n)).toMatch(/^[0-9a-f]{16}$/);
  });
});
