import { describe, expect, it } from "vitest";
import { PENDING_SNAPSHOT_WAIT_MS, pendingSnapshotRetryMs } from "./executor-actor";

describe("a pending start looking for its snapshot", () => {
  it("retries within milliseconds first, then keeps looking for PENDING_SNAPSHOT_WAIT_MS and no longer than a second more", () => {
    const delays: number[] = [];
    for (let delivery = 1; ; delivery++) {
      const delay = pendingSnapshotRetryMs(delivery);
      if (delay === null) break;
      delays.push(delay);
    }
    expect(delays[0]).toBeLessThanOrEqual(10);
    const waited = delays.reduce((a, b) => a + b, 0);
    expect(waited).toBeGreaterThanOrEqual(PENDING_SNAPSHOT_WAIT_MS);
    expect(waited).toBeLessThan(PENDING_SNAPSHOT_WAIT_MS + 1_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1_000);
  });
});
