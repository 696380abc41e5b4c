import type { Plan } from "@wf/shared/auth";
import { describe, expect, it } from "vitest";
import { ModelCalls } from "./model-calls";

function plans(of: Record<string, Plan>): { of: (owner: string) => Promise<Plan | undefined> } {
  return { of: async (owner) => of[owner] };
}

/** A call that runs until `end` is called; `started` once the limiter made it. */
function heldCall() {
  let end!: () => void;
  let started = false;
  const done = new Promise<string>((resolve) => (end = () => resolve("done")));
  return {
    fn: () => {
      started = true;
      return done;
    },
    end,
    get started() {
      return started;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("ModelCalls", () => {
  it("gives each plan its share, never more than the total", () => {
    const calls = new ModelCalls(20, plans({}));
    expect([calls.share("free"), calls.share("pro"), calls.share("team"), calls.share(undefined)]).toEqual([
      4, 16, 20, 4,
    ]);
  });

  it("takes a waiting call that is aborted out of the queue: it is never made, and the next one goes in its turn", async () => {
    const calls = new ModelCalls(64, plans({}));
    const holders = Array.from({ length: 4 }, heldCall);
    const running = holders.map((h) => calls.run("a", new AbortController().signal, h.fn));
    const gaveUp = heldCall();
    const timeout = new AbortController();
    const aborted = calls.run("a", timeout.signal, gaveUp.fn);
    const next = heldCall();
    const after = calls.run("a", new AbortController().signal, next.fn);
    await settle();
    expect(holders.every((h) => h.started)).toBe(true);
    expect([gaveUp.started, next.started]).toEqual([false, false]);

    timeout.abort(new Error("step `ask` timed out"));
    await expect(aborted).rejects.toThrow("timed out");
    holders[0]!.end();
    await settle();
    expect([gaveUp.started, next.started]).toEqual([false, true]);
    next.end();
    for (const h of holders.slice(1)) h.end();
    expect((await after).value).toBe("done");
    expect((await after).waitedMs).toBeGreaterThanOrEqual(0);
    await Promise.all(running);
  });
});
