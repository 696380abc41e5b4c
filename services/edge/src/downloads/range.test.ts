import { describe, expect, it } from "vitest";
import { contentDisposition, parseRange } from "./range";

describe("parseRange", () => {
  it.each([
    [undefined, { kind: "full" }],
    ["bytes=0-9", { kind: "partial", start: 0, end: 9 }],
    ["bytes=90-", { kind: "partial", start: 90, end: 99 }],
    ["bytes=90-500", { kind: "partial", start: 90, end: 99 }],
    ["bytes=-10", { kind: "partial", start: 90, end: 99 }],
    ["bytes=-500", { kind: "partial", start: 0, end: 99 }],
    ["bytes=100-", { kind: "unsatisfiable" }],
    ["bytes=-0", { kind: "unsatisfiable" }],
    ["bytes=9-3", { kind: "full" }],
    ["bytes=0-1,5-6", { kind: "full" }],
    ["items=0-1", { kind: "full" }],
  ])("%s of 100 bytes", (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });

  it("cannot satisfy any range of an empty file", () => {
    expect(parseRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
  });
});

describe("contentDisposition", () => {
  it("gives an ASCII fallback and the exact UTF-8 name", () => {
    expect(contentDisposition('rép "1".csv')).toBe(
      `attachment; filename="r_p _1_.csv"; filename*=UTF-8''r%C3%A9p%20%221%22.csv`,
    );
  });
});
