import { describe, expect, it } from "vitest";
import { lineEdit, lineEdits, linesBefore } from "./lines-before";

const BEFORE = "one\ntwo\nthree\nfour\n";

describe("linesBefore", () => {
  it("keeps the lines before an edit and moves those after it by the lines it added", () => {
    const before = linesBefore(BEFORE, "one\ntwo\nnew\nnewer\nthree\nfour\n");
    expect([1, 2, 5, 6].map(before)).toEqual([
      { first: 1, last: 1 },
      { first: 2, last: 2 },
      { first: 3, last: 3 },
      { first: 4, last: 4 },
    ]);
  });

  it("gives a line the edit changed every line it replaced, and an added line the two lines around it", () => {
    expect(linesBefore(BEFORE, "one\n  TWO\n THREE\nfour\n")(3)).toEqual({ first: 2, last: 3 });
    expect(linesBefore(BEFORE, "one\ntwo\n  added\nthree\nfour\n")(3)).toEqual({ first: 2, last: 3 });
    // Two edits apart: each its own, the lines between them kept.
    expect(linesBefore(BEFORE, "ONE\ntwo\nthree\nFOUR\n")(2)).toEqual({ first: 2, last: 2 });
    expect(linesBefore(BEFORE, "ONE\ntwo\nthree\nFOUR\n")(4)).toEqual({ first: 4, last: 4 });
  });

  it("maps every line to itself when nothing changed, and lines after a deletion back over it", () => {
    expect(linesBefore(BEFORE, BEFORE)(4)).toEqual({ first: 4, last: 4 });
    expect(linesBefore(BEFORE, "one\nfour\n")(2)).toEqual({ first: 4, last: 4 });
  });

  it("takes the lines from the first that differs to the last as one edit, empty where lines were only added", () => {
    const lines = (text: string) => text.split("\n");
    expect(lineEdit(lines(BEFORE), lines("one\ntwo\nnew\nthree\nfour\n"))).toEqual({
      oldFrom: 3,
      from: 3,
      oldTo: 2,
      newTo: 3,
    });
    expect(lineEdit(lines(BEFORE), lines("one\nTWO\nTHREE\nfour\n"))).toEqual({
      oldFrom: 2,
      from: 2,
      oldTo: 3,
      newTo: 3,
    });
  });

  it("tells edits apart that lines both texts keep lie between", () => {
    const lines = (text: string) => text.split("\n");
    const before = "a\nb\nc\nd\ne\nf\n";
    // b changed, a line added after d, f gone.
    const after = "a\nB\nc\nd\nnew\ne\n";
    expect(lineEdits(lines(before), lines(after))).toEqual([
      { oldFrom: 2, from: 2, oldTo: 2, newTo: 2 },
      { oldFrom: 5, from: 5, oldTo: 4, newTo: 5 },
      { oldFrom: 6, from: 7, oldTo: 6, newTo: 6 },
    ]);
    const at = linesBefore(before, after);
    expect([1, 2, 3, 4, 5, 6, 7].map(at)).toEqual([
      { first: 1, last: 1 },
      { first: 2, last: 2 },
      { first: 3, last: 3 },
      { first: 4, last: 4 },
      { first: 4, last: 5 },
      { first: 5, last: 5 },
      { first: 7, last: 7 },
    ]);
    expect(lineEdits(lines(before), lines(before))).toEqual([]);
  });
});
