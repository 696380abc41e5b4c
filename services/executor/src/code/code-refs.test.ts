import { describe, expect, it } from "vitest";
import { HELD_MAX_CODES, HeldCodes, REF_MAX_CHARS, SENT_MAX_CHARS, SENT_MAX_CODES, SentCodes } from "./code-refs";

describe("SentCodes", () => {
  it("gives a code one id, sends it before its first run only, and leaves a code too long to its runs", () => {
    const sent = new SentCodes();
    const id = sent.idOf("return 1")!;
    expect(sent.idOf("return 1")).toBe(id);
    expect(sent.idOf("return 2")).not.toBe(id);
    expect(sent.before(id, "return 1", "a")).toEqual([{ t: "code", codeId: id, code: "return 1" }]);
    expect(sent.before(id, "return 1", "a")).toEqual([]);
    expect(sent.idOf(undefined)).toBeNull();
    expect(sent.idOf("x".repeat(REF_MAX_CHARS + 1))).toBeNull();
  });

  it("has the runner forget the least recently run code past its bound, and sends a forgotten one again under its id", () => {
    const sent = new SentCodes();
    const ids = Array.from({ length: SENT_MAX_CODES }, (_, i) => sent.idOf(`return ${i}`)!);
    ids.forEach((id, i) => expect(sent.before(id, `return ${i}`, "a")).toHaveLength(1));
    // The first is run again: the second is now the least recently run.
    expect(sent.before(ids[0]!, "return 0", "a")).toEqual([]);
    const next = sent.idOf("return next")!;
    expect(sent.before(next, "return next", "a")).toEqual([
      { t: "code", codeId: next, code: "return next" },
      { t: "forget", codeId: ids[1] },
    ]);
    // A run queued with the forgotten id before it was forgotten: its code goes again, under the same id.
    expect(sent.before(ids[1]!, "return 1", "a")).toEqual([
      { t: "code", codeId: ids[1], code: "return 1" },
      { t: "forget", codeId: ids[2] },
    ]);
  });

  it("keeps what the runner holds within its characters too", () => {
    const sent = new SentCodes();
    const big = (n: number): string => `// ${String(n).padStart(4, "0")}\n${"x".repeat(REF_MAX_CHARS / 2)}`;
    const perCode = big(0).length;
    const fit = Math.floor(SENT_MAX_CHARS / perCode);
    const ids = Array.from({ length: fit }, (_, i) => sent.idOf(big(i))!);
    ids.forEach((id, i) => expect(sent.before(id, big(i), "a")).toHaveLength(1));
    const over = sent.idOf(big(fit))!;
    expect(sent.before(over, big(fit), "a").slice(1)).toEqual([{ t: "forget", codeId: ids[0] }]);
  });
});

describe("SentCodes among owners", () => {
  it("has an owner running many codes forget its own, not those of an owner holding less", () => {
    const sent = new SentCodes();
    const quiet = Array.from({ length: 20 }, (_, i) => sent.idOf(`quiet ${i}`)!);
    quiet.forEach((id, i) => sent.before(id, `quiet ${i}`, "quiet"));
    const forgotten: number[] = [];
    for (let i = 0; i < 3 * SENT_MAX_CODES; i++) {
      const id = sent.idOf(`flood ${i}`)!;
      for (const msg of sent.before(id, `flood ${i}`, "flood")) if (msg.t === "forget") forgotten.push(msg.codeId);
    }
    expect(forgotten.length).toBe(3 * SENT_MAX_CODES - (SENT_MAX_CODES - 20));
    expect(forgotten.filter((id) => quiet.includes(id))).toEqual([]);
    // Still held: nothing to send before the quiet owner's next runs.
    quiet.forEach((id, i) => expect(sent.before(id, `quiet ${i}`, "quiet")).toEqual([]));
  });
});

describe("HeldCodes", () => {
  it("holds codes by id until forgotten, and drops the oldest past its own bound whatever its client sends", () => {
    const held = new HeldCodes();
    held.hold(1, "return 1");
    expect(held.code(1)).toBe("return 1");
    held.forget(1);
    expect(held.code(1)).toBeUndefined();
    for (let id = 1; id <= HELD_MAX_CODES + 1; id++) held.hold(id, `return ${id}`);
    expect(held.code(1)).toBeUndefined();
    expect(held.code(2)).toBe("return 2");
    expect(held.code(HELD_MAX_CODES + 1)).toBe(`return ${HELD_MAX_CODES + 1}`);
  });
});
