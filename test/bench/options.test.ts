import { describe, expect, it } from "vitest";
import { roundsFromEnv } from "./options";

describe("roundsFromEnv", () => {
  it("leaves the parts' own rounds when BENCH_ROUNDS is unset or blank", () => {
    expect(roundsFromEnv({})).toBeUndefined();
    expect(roundsFromEnv({ BENCH_ROUNDS: " " })).toBeUndefined();
  });

  it("takes a whole number of rounds", () => {
    expect(roundsFromEnv({ BENCH_ROUNDS: "7" })).toBe(7);
    expect(roundsFromEnv({ BENCH_ROUNDS: " 1 " })).toBe(1);
  });

  it("refuses what is not a whole number from 1 to 15, saying so", () => {
    for (const text of ["0", "16", "2.5", "five", "-3"])
      expect(() => roundsFromEnv({ BENCH_ROUNDS: text })).toThrow(
        `BENCH_ROUNDS: "${text}" is not a whole number from 1 to 15`,
      );
  });
});
