import { describe, expect, it } from "vitest";
import { PLAN_LIMITS } from "@wf/shared/auth";
import { judge } from "./limiter";
import { counterKey, secondsUntilReset } from "@wf/shared/rate-limit";

const T = Date.UTC(2030, 5, 30, 23, 58, 30, 250);

describe("rate-limit windows", () => {
  it("keeps one counter per key and UTC date", () => {
    expect(counterKey("k1", T)).toBe("k1.20300630");
    expect(counterKey("k1", Date.UTC(2030, 6, 1))).toBe("k1.20300701");
  });

  it("resets at the next minute boundary and at 00:00 UTC", () => {
    expect(secondsUntilReset("minute", T)).toBe(30);
    expect(secondsUntilReset("day", T)).toBe(90);
    expect(secondsUntilReset("minute", Date.UTC(2030, 0, 1, 0, 0, 59, 999))).toBe(1);
  });
});

describe("judge", () => {
  it("shows the window with the least left while neither is exceeded", () => {
    expect(judge({ minute: 10, day: 100 }, PLAN_LIMITS.free, T)).toEqual({
      window: "minute",
      limit: 60,
      remaining: 50,
      retryAfterSeconds: null,
    });
    expect(judge({ minute: 10, day: 1_995 }, PLAN_LIMITS.free, T)).toEqual({
      window: "day",
      limit: 2_000,
      remaining: 5,
      retryAfterSeconds: null,
    });
  });

  it("reports the exceeded window, the day before the minute", () => {
    expect(judge({ minute: 61, day: 61 }, PLAN_LIMITS.free, T)).toEqual({
      window: "minute",
      limit: 60,
      remaining: 0,
      retryAfterSeconds: 30,
    });
    expect(judge({ minute: 61, day: 2_001 }, PLAN_LIMITS.free, T)).toEqual({
      window: "day",
      limit: 2_000,
      remaining: 0,
      retryAfterSeconds: 90,
    });
  });

  it("has no day window for Enterprise", () => {
    expect(judge({ minute: 6_000, day: 10 ** 9 }, PLAN_LIMITS.enterprise, T)).toEqual({
      window: "minute",
      limit: 6_000,
      remaining: 0,
      retryAfterSeconds: null,
    });
    expect(judge({ minute: 6_001, day: 1 }, PLAN_LIMITS.enterprise, T).retryAfterSeconds).toBe(30);
  });
});
