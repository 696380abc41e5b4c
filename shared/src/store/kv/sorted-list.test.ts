import { describe, expect, it } from "vitest";
import { seeded } from "../../canvas/testing/generate";
import { SortedList } from "./sorted-list";

describe("SortedList", () => {
  it("answers every page, count and lookup as a sorted array would, across splits and emptied chunks", () => {
    // Seeded, so that a failure replays.
    const next = seeded(7);
    const list = new SortedList<{ key: string; n: number }>((item) => item.key);
    const model = new Map<string, number>();
    const keyOf = (n: number) => n.toString().padStart(6, "0");
    for (let op = 0; op < 20_000; op++) {
      // Mostly appends of the newest key, as executions arrive; the rest anywhere.
      const n = next() < 0.6 ? 100_000 + op : Math.floor(next() * 5_000);
      const key = keyOf(n);
      if (next() < 0.3) {
        expect(list.delete(key)).toBe(model.delete(key));
      } else {
        list.put({ key, n: op });
        model.set(key, op);
      }
      if (op % 997 === 0 || op === 19_999) {
        const sorted = [...model.entries()].sort(([a], [b]) => (a < b ? 1 : a > b ? -1 : 0));
        expect(list.size).toBe(model.size);
        for (const [skip, limit] of [
          [0, 20],
          [37, 50],
          [Math.max(0, model.size - 5), 20],
          [model.size + 3, 10],
        ] as const) {
          expect(list.descending(skip, limit).map((i) => [i.key, i.n])).toEqual(sorted.slice(skip, skip + limit));
        }
        const ascending = sorted.toReversed();
        for (const probe of [key, keyOf(2_500), keyOf(0), keyOf(999_999)]) {
          expect(list.countAbove(probe)).toBe(sorted.filter(([k]) => k > probe).length);
          expect(list.find(probe)?.n).toBe(model.get(probe));
          // From the least up, below a bound, and past a cursor (listed or not) when one is given.
          for (const [above, limit] of [
            [undefined, 40],
            [probe, 40],
            [keyOf(1_000), 700],
            [keyOf(999_999), 5],
          ] as const) {
            const expected = ascending.filter(([k]) => k < keyOf(100_000 + op) && (above === undefined || k > above)).slice(0, limit);
            expect(list.ascendingBetween(keyOf(100_000 + op), limit, above).map((i) => [i.key, i.n])).toEqual(expected);
          }
        }
      }
    }
  });

  it("is empty before any item and after the last is removed", () => {
    const list = new SortedList<string>((s) => s);
    expect([list.size, list.descending(0, 5), list.countAbove("a"), list.find("a"), list.delete("a"), list.ascendingBetween("z", 5, "a")]).toEqual([
      0,
      [],
      0,
      undefined,
      false,
      [],
    ]);
    list.put("a");
    list.put("a");
    expect(list.size).toBe(1);
    expect(list.delete("a")).toBe(true);
    expect([list.size, list.descending(0, 5)]).toEqual([0, []]);
  });
});
