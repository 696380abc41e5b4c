import { describe, expect, it } from "vitest";
import { waitFor } from "@wf/testing";
import { MarkerPurges } from "./marker-purges";

describe("the purges of delete markers", () => {
  it("purges each marker after the delay, oldest first, past a failed purge, and none once closed", async () => {
    const purged: string[] = [];
    const purges = new MarkerPurges(async (key, before) => {
      if (key === "fails") throw new Error("the server said no");
      purged.push(`${key}<${before}`);
    }, 50);
    purges.add("a", 3);
    purges.add("fails", 4);
    purges.add("b", 6);
    expect(purges.waiting).toBe(3);
    expect(purged).toEqual([]);
    await waitFor(() => purged.length === 2, { timeoutMs: 2_000, what: "two purges" });
    expect(purged).toEqual(["a<3", "b<6"]);
    expect(purges.waiting).toBe(0);

    purges.add("c", 9);
    purges.close();
    purges.add("d", 10);
    await waitFor(() => purged.length === 3, { timeoutMs: 2_000, what: "the purge added after close" });
    expect(purged).toEqual(["a<3", "b<6", "d<10"]);
  });

  it("keeps each marker's delay from its own removal, in order across the queue's compaction", async () => {
    let now = 0;
    const purged: number[] = [];
    const purges = new MarkerPurges(
      async (_key, before) => void purged.push(before),
      100,
      () => now,
    );
    for (let i = 0; i < 3_001; i++) purges.add(`k${i}`, i);
    now = 60;
    for (let i = 3_001; i < 6_000; i++) purges.add(`k${i}`, i);
    // The older ones are due at 100, the rest at 160: none of those goes while the clock says less.
    now = 100;
    await waitFor(() => purged.length === 3_001, { timeoutMs: 2_000, what: "the older markers' purges" });
    expect(purges.waiting).toBe(2_999);
    now = 160;
    await waitFor(() => purged.length === 6_000, { timeoutMs: 2_000, what: "the rest" });
    expect(purged).toEqual(Array.from({ length: 6_000 }, (_, i) => i));
    purges.add("last", 6_000);
    now = 260;
    await waitFor(() => purged.length === 6_001, { timeoutMs: 2_000, what: "one more after the queue emptied" });
  });

  it("purges markers found stale at once, 16 at a time however many", async () => {
    let inFlight = 0;
    let most = 0;
    const purged: string[] = [];
    const purges = new MarkerPurges(async (key) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
      purged.push(key);
    }, 60_000);
    for (let i = 0; i < 100; i++) purges.purgeNow(`k${i}`, i + 1);
    await waitFor(() => purged.length === 100, { timeoutMs: 5_000, what: "every stale marker purged" });
    expect(most).toBe(16);
    expect(purged.toSorted()).toEqual(Array.from({ length: 100 }, (_, i) => `k${i}`).toSorted());
    expect(purges.waiting).toBe(0);
  });
});
