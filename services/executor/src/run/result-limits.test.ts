import { describe, expect, it } from "vitest";
import { resultLimits } from "@wf/shared/execution";
import { cutLogs, cutText, cutValue, jsonBytes } from "./result-limits";

describe("resultLimits", () => {
  it("are shares of the server's max_payload, so a server configured for more keeps more", () => {
    expect(resultLimits(1024 * 1024)).toEqual({
      recordBytes: 1_048_576,
      outputBytes: 262_144,
      inputBytes: 32_768,
      logBytes: 65_536,
      errorBytes: 8_192,
      toolCallBytes: 65_536,
      eventValueBytes: 65_536,
      outboxBytes: 65_536,
    });
    const big = resultLimits(8 * 1024 * 1024);
    expect(big.outputBytes).toBe(2 * 1024 * 1024);
    expect(big.errorBytes).toBe(8_192);
  });
});

describe("cutValue", () => {
  it("keeps a value that fits, whatever its type", () => {
    for (const v of ["short", 12, null, { a: [1, 2] }]) expect(cutValue(v, 100, "output")).toBe(v);
  });

  it("keeps the beginning of a long string, within the limit, and says where it was cut", () => {
    const cut = cutValue("x".repeat(10_000), 1_000, "output") as string;
    expect(jsonBytes(cut)).toBeLessThanOrEqual(1_000);
    expect(cut).toMatch(
      /^x{800,}\n\[output cut to 1000 bytes of JSON from 10002; write large results to WF_ARTIFACTS_DIR as artifacts\]$/,
    );
  });

  it("never splits a character, and counts what JSON escapes add", () => {
    const emoji = cutValue("😀".repeat(5_000), 1_000, "output") as string;
    expect(jsonBytes(emoji)).toBeLessThanOrEqual(1_000);
    expect(emoji.split("\n[")[0]).toMatch(/^(😀)+$/u);
    const controls = cutValue("\u0001".repeat(5_000), 1_000, "input") as string;
    expect(jsonBytes(controls)).toBeLessThanOrEqual(1_000);
    expect(controls).toContain("[input cut to 1000 bytes of JSON from 30002");
  });

  it("replaces a structured value that does not fit by a marker saying what it was", () => {
    const list = Array.from({ length: 1_000 }, (_, i) => i);
    expect(cutValue(list, 100, "output")).toEqual({
      truncated: true,
      bytes: jsonBytes(list),
      note: `output not kept: ${jsonBytes(list)} bytes of JSON, over the 100 bytes it may have; write large results to WF_ARTIFACTS_DIR as artifacts`,
    });
  });

  it("replaces a value nested too deeply to serialise", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonBytes(deep)).toBe(Number.POSITIVE_INFINITY);
    expect(cutValue(deep, 1_000, "output")).toEqual({
      truncated: true,
      note: "output not kept: it is nested too deeply to store",
    });
  });
});

describe("cutText and cutLogs", () => {
  it("cuts an error to its limit, saying so", () => {
    const cut = cutText("e".repeat(20_000), 500, "error");
    expect(jsonBytes(cut)).toBeLessThanOrEqual(500);
    expect(cut).toMatch(/^e+ \[error cut to 500 bytes of JSON from 20002\]$/);
    expect(cutText("fine", 500, "error")).toBe("fine");
  });

  it("keeps the newest lines of a log that fit, after a line saying how many were left out", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${"-".repeat(90)}`);
    expect(cutLogs(lines, 100_000)).toEqual(lines);
    const kept = cutLogs(lines, 1_000);
    expect(jsonBytes(kept)).toBeLessThanOrEqual(1_000);
    expect(kept.at(-1)).toBe(lines.at(-1));
    expect(kept[0]).toBe(
      `[${100 - (kept.length - 1)} earlier log lines not kept: a step keeps at most 1000 bytes of log]`,
    );
    expect(kept.slice(1)).toEqual(lines.slice(100 - (kept.length - 1)));
  });
});
