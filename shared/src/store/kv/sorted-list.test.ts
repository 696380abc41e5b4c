import { describe, expect, it } from "vitest";
import { seeded } from "../../testing/random";
import { SortedList } from "./sorted-list";

describe("SortedList", () => {
  it("answers every page, count and lookup as a sorted array would, across splits and emptied chunks", () => {
    // Seeded, so that a failure replays.
    const next = seeded(7);
    // Handles name items by their index here; a key put again gets a new handle, which replaces the old.
    const keys: string[] = [];
    const list = new SortedList((h) => keys[h]!);
    const model = new Map<string, number>();
    const pairs = (handles: number[]) => handles.map((h) => [keys[h], h]);
    const keyOf = (n: number) => n.toString().padStart(6, "0");
    for (let op = 0; op < 20_000; op++) {
      // Mostly appends of the newest key, as executions arrive; the rest anywhere.
      const n = next() < 0.6 ? 100_000 + op : Math.floor(next() * 5_000);
      const key = keyOf(n);
      if (next() < 0.3) {
        expect(list.delete(key)).toBe(model.delete(key));
      } else {
        keys.push(key);
        list.put(keys.length - 1);
        model.set(key, keys.length - 1);
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
          expect(pairs(list.descending(skip, limit))).toEqual(sorted.slice(skip, skip + limit));
        }
        const ascending = sorted.toReversed();
        for (const probe of [key, keyOf(2_500), keyOf(0), keyOf(999_999)]) {
          expect(list.countAbove(probe)).toBe(sorted.filter(([k]) => k > probe).length);
          expect(list.find(probe)).toBe(model.get(probe) ?? -1);
          // From the least up, below a bound, and past a cursor (listed or not) when one is given.
          for (const [above, limit] of [
            [undefined, 40],
            [probe, 40],
            [keyOf(1_000), 700],
            [keyOf(999_999), 5],
          ] as const) {
            const expected = ascending
              .filter(([k]) => k < keyOf(100_000 + op) && (above === undefined || k > above))
              .slice(0, limit);
            expect(pairs(list.ascendingBetween(keyOf(100_000 + op), limit, above))).toEqual(expected);
          }
        }
      }
    }
  });

  it("is empty before any item and after the last is removed", () => {
    const list = new SortedList(() => "a");
    expect([
      list.size,
      list.descending(0, 5),
      list.countAbove("a"),
      list.find("a"),
      list.delete("a"),
      list.ascendingBetween("z", 5, "a"),
    ]).toEqual([0, [], 0, -1, false, []]);
    list.put(0);
    list.put(1);
    expect(list.size).toBe(1);
    expect(list.delete("a")).toBe(true);
    expect([list.size, list.descending(0, 5)]).toEqual([0, []]);
  });

  it("orders items put newest last and then older ones between them (full chunks split), and removals among them", () => {
    const keys = Array.from({ length: 2_000 }, (_, i) => i.toString().padStart(5, "0"));
    const list = new SortedList((h) => keys[h]!);
    // Even keys in order, as executions arrive; then the odd ones between them, oldest first.
    for (let h = 0; h < keys.length; h += 2) list.put(h);
    for (let h = 1; h < keys.length; h += 2) list.put(h);
    expect(list.size).toBe(keys.length);
    expect(list.descending(0, keys.length)).toEqual(keys.map((_, h) => h).reverse());
    expect(list.countAbove("00999")).toBe(1_000);
    for (let h = 0; h < keys.length; h += 3) expect(list.delete(keys[h]!)).toBe(true);
    expect(list.descending(0, keys.length)).toEqual(
      keys
        .map((_, h) => h)
        .filter((h) => h % 3 !== 0)
        .reverse(),
    );
  });
});
