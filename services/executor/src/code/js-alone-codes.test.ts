import { describe, expect, it } from "vitest";
import { ALONE_RUNS, AloneCodes, codeKey, HEAVY_MS } from "./js-alone-codes";

describe("AloneCodes", () => {
  it("shares calls for a code until a shared call of it fails, then after ALONE_RUNS light runs alone", () => {
    const codes = new AloneCodes();
    codes.ranAlone("a", 0.1);
    expect(codes.alone("a")).toBe(false);
    codes.failedShared("a");
    for (let i = 1; i < ALONE_RUNS; i++) {
      codes.ranAlone("a", 0.1);
      expect(codes.alone("a")).toBe(true);
    }
    codes.ranAlone("a", 0.1);
    expect(codes.alone("a")).toBe(false);
  });

  it("keeps a code alone while its runs alone are heavy, counting again from the last heavy one", () => {
    const codes = new AloneCodes();
    codes.ranAlone("slow", HEAVY_MS);
    for (let i = 1; i < ALONE_RUNS; i++) codes.ranAlone("slow", 0.1);
    codes.ranAlone("slow", HEAVY_MS * 10);
    for (let i = 1; i < ALONE_RUNS; i++) codes.ranAlone("slow", 0.1);
    expect(codes.alone("slow")).toBe(true);
    codes.ranAlone("slow", 0.1);
    expect(codes.alone("slow")).toBe(false);
  });

  it("forgets the code found longest ago past 1,024", () => {
    const codes = new AloneCodes();
    for (let i = 0; i <= 1_024; i++) codes.failedShared(`code ${i}`);
    expect([codes.alone("code 0"), codes.alone("code 1"), codes.alone("code 1024")]).toEqual([false, true, true]);
  });

  it("knows a code by a short key, the same for the same code and another for another", () => {
    const long = "x".repeat(1_000_000);
    expect(codeKey(long).length).toBeLessThan(40);
    expect(codeKey(`${long}a`)).toBe(codeKey(`${long}a`));
    expect(codeKey(`${long}a`)).not.toBe(codeKey(`${long}b`));
  });
});
