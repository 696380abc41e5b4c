import { describe, expect, it } from "vitest";
import { waitForProgress } from "./wait-for";

describe("waitForProgress", () => {
  it("waits as long as the count keeps growing, past what a stall alone allows", async () => {
    let n = 0;
    const started = Date.now();
    await waitForProgress(() => ++n, 8, { stallMs: 30, timeoutMs: 5_000, intervalMs: 20 });
    expect(n).toBe(8);
    // Eight polls 20 ms apart: longer than stallMs, so the bound was on stalls, not the whole wait.
    expect(Date.now() - started).toBeGreaterThan(30);
  });

  it("fails once the count stops growing for stallMs, saying where it stopped", async () => {
    let n = 0;
    const err = await waitForProgress(() => Math.min(++n, 3), 10, {
      stallMs: 100,
      timeoutMs: 5_000,
      intervalMs: 10,
      what: "things",
    }).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^things: stalled at 3 of 10, nothing for 100 ms/);
  });

  it("fails after timeoutMs even while the count grows", async () => {
    let n = 0;
    const err = await waitForProgress(() => ++n, 1_000_000, { stallMs: 1_000, timeoutMs: 100, intervalMs: 10 }).catch(
      (e: unknown) => e as Error,
    );
    expect((err as Error).message).toMatch(/^progress: timed out after 100 ms at \d+ of 1000000/);
  });
});
