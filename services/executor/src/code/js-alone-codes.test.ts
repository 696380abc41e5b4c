import { describe, expect, it } from "vitest";
import { ALONE_RUNS, AloneCodes, CODES_PER_OWNER, codeKey, HEAVY_MS } from "./js-alone-codes";

describe("AloneCodes", () => {
  it("shares calls for a code until a shared call of it fails, then after ALONE_RUNS light runs alone", () => {
    const codes = new AloneCodes();
    codes.ranAlone("o", "a", 0.1);
    expect(codes.alone("o", "a")).toBe(false);
    codes.failedShared("o", "a");
    for (let i = 1; i < ALONE_RUNS; i++) {
      codes.ranAlone("o", "a", 0.1);
      expect(codes.alone("o", "a")).toBe(true);
    }
    codes.ranAlone("o", "a", 0.1);
    expect(codes.alone("o", "a")).toBe(false);
  });

  it("keeps a code alone while its runs alone are heavy, counting again from the last heavy one", () => {
    const codes = new AloneCodes();
    codes.ranAlone("o", "slow", HEAVY_MS);
    for (let i = 1; i < ALONE_RUNS; i++) codes.ranAlone("o", "slow", 0.1);
    codes.ranAlone("o", "slow", HEAVY_MS * 10);
    for (let i = 1; i < ALONE_RUNS; i++) codes.ranAlone("o", "slow", 0.1);
    expect(codes.alone("o", "slow")).toBe(true);
    codes.ranAlone("o", "slow", 0.1);
    expect(codes.alone("o", "slow")).toBe(false);
  });

  it("forgets an owner's code found longest ago past its room, and none of another owner's", () => {
    const codes = new AloneCodes();
    codes.failedShared("quiet", "mine");
    for (let i = 0; i <= CODES_PER_OWNER; i++) codes.failedShared("churner", `code ${i}`);
    expect(codes.alone("churner", "code 0")).toBe(false);
    expect(codes.alone("churner", "code 1")).toBe(true);
    expect(codes.alone("churner", `code ${CODES_PER_OWNER}`)).toBe(true);
    expect(codes.alone("quiet", "mine")).toBe(true);
    // The same code is its own for each owner.
    expect(codes.alone("churner", "mine")).toBe(false);
  });

  it("forgets the owner whose code was found longest ago past 1,024 owners", () => {
    const codes = new AloneCodes();
    for (let i = 0; i <= 1_024; i++) codes.failedShared(`owner ${i}`, "code");
    expect([codes.alone("owner 0", "code"), codes.alone("owner 1", "code"), codes.alone("owner 1024", "code")]).toEqual(
      [false, true, true],
    );
  });

  it("knows a code by a short key, the same for the same code and another for another", () => {
    const long = "x".repeat(1_000_000);
    expect(codeKey(long).length).toBeLessThan(40);
    expect(codeKey(`${long}a`)).toBe(codeKey(`${long}a`));
    expect(codeKey(`${long}a`)).not.toBe(codeKey(`${long}b`));
  });
});
