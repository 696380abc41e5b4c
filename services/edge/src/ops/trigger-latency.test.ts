import { describe, expect, it } from "vitest";
import { LatencySpan } from "./trigger-latency";

describe("a span of trigger answers", () => {
  it("gives the nearest-rank 99th percentile of what it saw, none when it saw nothing, and starts again when cleared", () => {
    const span = new LatencySpan();
    expect(span.p99()).toBeNull();
    span.add(5);
    expect(span.p99()).toBe(5);
    span.clear();
    // 1 to 100 ms, in any order: the 99th of 100 is 99.
    for (let ms = 100; ms >= 1; ms--) span.add(ms);
    expect(span.seen).toBe(100);
    expect(span.p99()).toBe(99);
    span.clear();
    expect(span.p99()).toBeNull();
  });

  it("past what it keeps, samples the answers uniformly: 2 % slow ones still make the p99", () => {
    const span = new LatencySpan();
    // 50,000 answers, every 50th of them slow: a sample of 8,192 holds about 164 slow ones, where 82 would do.
    for (let i = 1; i <= 50_000; i++) span.add(i % 50 === 0 ? 900 : 3);
    expect(span.seen).toBe(50_000);
    expect(span.p99()).toBe(900);
    span.clear();
    for (let i = 1; i <= 50_000; i++) span.add(i % 500 === 0 ? 900 : 3);
    expect(span.p99()).toBe(3);
  });
});
