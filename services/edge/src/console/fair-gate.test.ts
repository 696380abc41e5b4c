import { describe, expect, it } from "vitest";
import { FairGate, GateFull } from "./fair-gate";

/** A job the test ends when it likes, recording when it started. */
function held(started: string[], name: string): { work: () => Promise<string>; end(): void } {
  let end: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (end = resolve));
  return {
    work: async () => {
      started.push(name);
      await done;
      return name;
    },
    end: () => end(),
  };
}

/** Lets the gate's promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("FairGate", () => {
  it("runs at most its concurrency at once, queues at most its limit, and refuses the rest at once", async () => {
    const gate = new FairGate(2, 3);
    const started: string[] = [];
    const jobs = Array.from({ length: 7 }, (_, i) => held(started, `j${i}`));
    const runs = jobs.map((j, i) => gate.run(["address", `email ${i}`], j.work));
    const outcomes = runs.map((r) =>
      r.then(
        (v) => v,
        (err: unknown) => err,
      ),
    );
    await settle();
    expect(started).toEqual(["j0", "j1"]);
    expect(await outcomes[5]).toBeInstanceOf(GateFull);
    expect(await outcomes[6]).toBeInstanceOf(GateFull);

    jobs[0]!.end();
    expect(await runs[0]).toBe("j0");
    await settle();
    expect(started).toEqual(["j0", "j1", "j2"]);
    // A slot of the queue freed: the next one waits again.
    const later = held(started, "later");
    const laterRun = gate.run(["address", "email later"], later.work);
    for (const j of [...jobs.slice(1, 5), later]) {
      j.end();
      await settle();
    }
    expect(await Promise.all([...runs.slice(1, 5), laterRun])).toEqual(["j1", "j2", "j3", "j4", "later"]);
    expect(started).toEqual(["j0", "j1", "j2", "j3", "j4", "later"]);
  });

  it("starts next the job whose lanes had the fewest started, the first lane first, then the oldest", async () => {
    const gate = new FairGate(1, 10);
    const started: string[] = [];
    const flood = Array.from({ length: 4 }, (_, i) => held(started, `flood${i}`));
    const runs = flood.map((j) => gate.run(["address A", "alice"], j.work));
    const sameAddress = held(started, "bob from A");
    const otherAddress = held(started, "carol from B");
    runs.push(gate.run(["address A", "bob"], sameAddress.work), gate.run(["address B", "carol"], otherAddress.work));
    await settle();
    for (const j of [flood[0]!, otherAddress, sameAddress, ...flood.slice(1)]) {
      j.end();
      await settle();
    }
    await Promise.all(runs);
    // Carol's address had none started; Bob's had Alice's, but Bob none of his own.
    expect(started).toEqual(["flood0", "carol from B", "bob from A", "flood1", "flood2", "flood3"]);
  });

  it("keeps a slot from the narrowest lane: one email from one address never runs on every slot", async () => {
    const gate = new FairGate(2, 10);
    const started: string[] = [];
    const flood = Array.from({ length: 3 }, (_, i) => held(started, `flood${i}`));
    const runs = flood.map((j) => gate.run(["address A", "alice at A"], j.work));
    await settle();
    expect(started).toEqual(["flood0"]);
    const bob = held(started, "bob");
    runs.push(gate.run(["address A", "bob at A"], bob.work));
    await settle();
    expect(started).toEqual(["flood0", "bob"]);
    bob.end();
    await settle();
    // Bob's slot is free again, but the flood's lane is still running one.
    expect(started).toEqual(["flood0", "bob"]);
    for (const j of flood) {
      j.end();
      await settle();
    }
    await Promise.all(runs);
    expect(started).toEqual(["flood0", "bob", "flood1", "flood2"]);
  });

  it("with the queue full, lets a newcomer that goes first push out the last in line", async () => {
    const gate = new FairGate(1, 2);
    const started: string[] = [];
    const flood = Array.from({ length: 3 }, (_, i) => held(started, `flood${i}`));
    const runs = flood.map((j) => gate.run(["address A"], j.work).catch((err: unknown) => err));
    const newcomer = held(started, "newcomer");
    const newcomerRun = gate.run(["address B"], newcomer.work);
    // The flood's own next one has no better place than the last: it is refused.
    expect(await gate.run(["address A"], held(started, "more").work).catch((err: unknown) => err)).toBeInstanceOf(
      GateFull,
    );
    expect(await runs[2]).toBeInstanceOf(GateFull);
    flood[0]!.end();
    await settle();
    newcomer.end();
    await settle();
    flood[1]!.end();
    expect(await newcomerRun).toBe("newcomer");
    expect(await runs[1]).toBe("flood1");
    expect(started).toEqual(["flood0", "newcomer", "flood1"]);
  });

  it("passes a job's failure on and frees its slot", async () => {
    const gate = new FairGate(1, 0);
    await expect(gate.run(["a"], () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await gate.run(["a"], async () => "next")).toBe("next");
  });
});
